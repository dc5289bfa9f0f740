import Foundation
import TestSupport
import XCTest

@testable import Rendition

/// JPEGs for the decoder's tests, made by independent tools: a camera-like photo (Pillow, odd
/// size, EXIF), re-encoded by libjpeg-turbo's `cjpeg` in each sampling, and transcoded losslessly
/// by `jpegtran` into progressive and restart-marker forms (same coefficients, so the same pixels).
/// `djpeg` decodes the reference luma.
final class JPEGFixtures {
    let folder: URL
    /// The camera-like photo: 1001×667, 4:2:2, EXIF and an ICC profile.
    let camera: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-jpeg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        camera = folder.appendingPathComponent("camera.jpg")
        try CameraJPEG.write(to: camera, .init(width: 1001, height: 667, gps: true, xmp: true, seed: 7))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    static func tool(_ name: String) throws -> URL {
        guard let url = Subprocess.which(name) else {
            throw CameraJPEG.Failure.tool("\(name) is missing: scripts/install-deps.sh test installs libjpeg-turbo-progs")
        }
        return url
    }

    /// Runs a libjpeg-turbo tool that writes `-outfile`, and returns that file.
    @discardableResult
    func run(_ name: String, _ arguments: [String], into file: String) throws -> URL {
        let output = folder.appendingPathComponent(file)
        let result = try Subprocess.run(try Self.tool(name), ["-outfile", output.path] + arguments, timeout: 60)
        guard result.status == 0 else { throw CameraJPEG.Failure.tool("\(name) \(arguments): \(result.stderr)") }
        return output
    }

    /// The camera photo re-encoded by cjpeg with `-sample` (e.g. "2x2" for 4:2:0), or in grey.
    func sampled(_ sampling: String?) throws -> URL {
        let ppm = folder.appendingPathComponent("camera.ppm")
        if !FileManager.default.fileExists(atPath: ppm.path) { try run("djpeg", ["-pnm", camera.path], into: "camera.ppm") }
        let options = sampling.map { ["-sample", $0] } ?? ["-grayscale"]
        return try run("cjpeg", options + ["-quality", "90", ppm.path], into: "sampled-\(sampling ?? "grey").jpg")
    }

    /// `source` transcoded without loss by jpegtran (e.g. `-progressive`, `-restart 1`), its
    /// markers kept.
    func transcoded(_ source: URL, _ options: [String], name: String) throws -> URL {
        try run("jpegtran", ["-copy", "all"] + options + [source.path], into: name)
    }

    /// libjpeg-turbo's own decoding of the luma (`djpeg -grayscale`) at `scale`/8: width, height,
    /// pixels.
    func referenceLuma(_ source: URL, eighths: Int) throws -> PixelPlaneBytes {
        let pgm = try run("djpeg", ["-scale", "\(eighths)/8", "-grayscale", "-pnm", source.path], into: "luma-\(eighths).pgm")
        return try PixelPlaneBytes(pgm: Data(contentsOf: pgm))
    }
}

/// A grey image as `djpeg` writes it (binary PGM).
struct PixelPlaneBytes: Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(pgm: Data) throws {
        let bytes = [UInt8](pgm)
        var fields: [String] = []
        var index = 0
        while fields.count < 4 {
            while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x0A) { index += 1 }
            let start = index
            while index < bytes.count && bytes[index] != 0x20 && bytes[index] != 0x0A { index += 1 }
            fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        index += 1
        guard fields[0] == "P5", let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw CameraJPEG.Failure.tool("not a binary PGM: \(fields)")
        }
        self.init(width: width, height: height, pixels: Array(bytes[index..<(index + width * height)]))
    }
}

/// The mean structural similarity of two planes of one size (8×8 windows, the constants of
/// Wang et al. 2004 for 8-bit samples): 1 for identical planes.
func structuralSimilarity(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double {
    let c1: Double = (0.01 * 255) * (0.01 * 255)
    let c2: Double = (0.03 * 255) * (0.03 * 255)
    var total = 0.0
    var windows = 0
    for top in stride(from: 0, through: height - 8, by: 8) {
        for left in stride(from: 0, through: width - 8, by: 8) {
            var sumA = 0.0
            var sumB = 0.0
            var sumAA = 0.0
            var sumBB = 0.0
            var sumAB = 0.0
            for y in top..<(top + 8) {
                for x in left..<(left + 8) {
                    let p = Double(a[y * width + x])
                    let q = Double(b[y * width + x])
                    sumA += p
                    sumB += q
                    sumAA += p * p
                    sumBB += q * q
                    sumAB += p * q
                }
            }
            let n = 64.0
            let meanA = sumA / n
            let meanB = sumB / n
            let varA = sumAA / n - meanA * meanA
            let varB = sumBB / n - meanB * meanB
            let cov = sumAB / n - meanA * meanB
            total += ((2 * meanA * meanB + c1) * (2 * cov + c2)) / ((meanA * meanA + meanB * meanB + c1) * (varA + varB + c2))
            windows += 1
        }
    }
    return total / Double(max(1, windows))
}

extension JPEGStreamDecoder {
    /// The decoded planes, copied (after ``readStrips()`` said every row is out).
    func decodedPlanes() -> [PixelPlane] {
        planeSizes.enumerated().map { component, size in
            PixelPlane(
                width: size.width, height: size.height,
                pixels: Array(UnsafeBufferPointer(start: plane(component), count: size.width * size.height)))
        }
    }
}
