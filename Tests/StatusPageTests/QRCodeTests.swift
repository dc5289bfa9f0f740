import Foundation
import Testing

@testable import StatusPage

/// The status page's address as a QR code in the terminal: libqrencode's code, drawn two
/// module rows per line with a quiet zone.
struct QRCodeTests {
    /// A finder pattern: the 7 × 7 square with a dark ring, a light ring and a dark 3 × 3 core.
    private func isFinder(_ modules: [[Bool]], row: Int, column: Int) -> Bool {
        (0..<7).allSatisfy { r in
            (0..<7).allSatisfy { c in
                let ring = min(r, c, 6 - r, 6 - c)
                return modules[row + r][column + c] == (ring != 1)
            }
        }
    }

    @Test func anAddressBecomesAQRCodeWithItsThreeFinderPatterns() throws {
        let code = try #require(QRCode(encoding: "http://192.168.1.20:8080/?token=0123456789abcdef0123456789abcdef"))
        let size = code.modules.count
        #expect(size >= 21 && (size - 21) % 4 == 0, "a QR code is 21 + 4k modules wide")
        #expect(code.modules.allSatisfy { $0.count == size })
        #expect(isFinder(code.modules, row: 0, column: 0))
        #expect(isFinder(code.modules, row: 0, column: size - 7))
        #expect(isFinder(code.modules, row: size - 7, column: 0))
    }

    @Test func twoRowsOfModulesMakeOneLine() {
        // Dark modules are the terminal's background; light ones are drawn, and so is the quiet zone.
        let code = QRCode(modules: [[true, false], [false, true]])
        let lines = code.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 3, "6 rows with the quiet zone: 3 lines")
        #expect(lines[0] == "██████")
        #expect(lines[1] == "██▄▀██", "rows 2 and 3: dark over light on the left, light over dark on the right")
        #expect(lines[2] == "██████")
    }

    /// zbarimg (ZBar, a reader nobody here wrote) reads the code back as the address.
    @Test
    func aReaderGetsTheAddressBack() throws {
        let address = "http://192.168.1.20:8080/?token=0123456789abcdef0123456789abcdef"
        let code = try #require(QRCode(encoding: address))
        // A grey image (PGM), 4 pixels a module, with a quiet zone of 4 modules.
        let scale = 4
        let quiet = 4
        let size = (code.modules.count + 2 * quiet) * scale
        var pixels = [UInt8](repeating: 255, count: size * size)
        for (row, modules) in code.modules.enumerated() {
            for (column, dark) in modules.enumerated() where dark {
                for y in 0..<scale {
                    for x in 0..<scale { pixels[((row + quiet) * scale + y) * size + (column + quiet) * scale + x] = 0 }
                }
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).pgm")
        try (Data("P5 \(size) \(size) 255\n".utf8) + Data(pixels)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        reader.arguments = ["--raw", "-q", file.path]
        let output = Pipe()
        reader.standardOutput = output
        try reader.run()
        let read = output.fileHandleForReading.readDataToEndOfFile()
        reader.waitUntilExit()
        #expect(String(decoding: read, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == address)
    }
}
