import Foundation
import TestSupport

@testable import Rendition

/// An RGB image as `djpeg -pnm` writes it (binary PPM), as planes, for comparisons in any
/// orientation.
struct RGBImage {
    var width: Int
    var height: Int
    /// R, G, B planes.
    var planes: [PixelPlane]

    /// libjpeg-turbo's own whole decode of `file`, in RGB.
    static func decoding(_ file: URL, in folder: URL) throws -> RGBImage {
        let output = folder.appendingPathComponent("\(UUID().uuidString).ppm")
        let result = try Subprocess.run(try JPEGFixtures.tool("djpeg"), ["-pnm", "-outfile", output.path, file.path], timeout: 120)
        guard result.status == 0 else { throw CameraJPEG.Failure.tool("djpeg: \(result.stderr)") }
        defer { try? FileManager.default.removeItem(at: output) }
        let bytes = [UInt8](try Data(contentsOf: output))
        var fields: [String] = []
        var index = 0
        while fields.count < 4 {
            while bytes[index] == 0x20 || bytes[index] == 0x0A { index += 1 }
            let start = index
            while bytes[index] != 0x20 && bytes[index] != 0x0A { index += 1 }
            fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        index += 1
        guard fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw CameraJPEG.Failure.tool("not a binary PPM: \(fields)")
        }
        var channels = [[UInt8]](repeating: [UInt8](repeating: 0, count: width * height), count: 3)
        bytes.withUnsafeBufferPointer { source in
            for channel in 0..<3 {
                channels[channel].withUnsafeMutableBufferPointer { target in
                    for i in 0..<(width * height) { target[i] = source[index + i * 3 + channel] }
                }
            }
        }
        return RGBImage(width: width, height: height, planes: channels.map { PixelPlane(width: width, height: height, pixels: $0) })
    }

    func oriented(_ orientation: ExifOrientation) -> RGBImage {
        let turned = planes.map { $0.oriented(orientation) }
        return RGBImage(width: turned[0].width, height: turned[0].height, planes: turned)
    }

    func cropped(_ rect: PixelRect) -> RGBImage {
        let cut = planes.map { plane in
            var pixels: [UInt8] = []
            pixels.reserveCapacity(rect.width * rect.height)
            for y in rect.top..<(rect.top + rect.height) {
                pixels += plane.pixels[(y * plane.width + rect.left)..<(y * plane.width + rect.left + rect.width)]
            }
            return PixelPlane(width: rect.width, height: rect.height, pixels: pixels)
        }
        return RGBImage(width: rect.width, height: rect.height, planes: cut)
    }

    /// The mean absolute difference of the two images' luma (BT.601): chroma is subsampled by
    /// the encoder, so it differs where the test photo's colour noise is finer than that.
    func meanDifference(_ other: RGBImage) -> Double {
        precondition(width == other.width && height == other.height, "compared images have one size")
        let (a, b) = (luma, other.luma)
        var total = 0
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in for i in a.indices { total += abs(a[i] - b[i]) } } }
        return Double(total) / Double(width * height)
    }

    /// The mean of each channel: a crop with its chroma planes swapped or misplaced shows here.
    var meanColour: [Double] {
        planes.map { plane in Double(plane.pixels.reduce(0) { $0 + Int($1) }) / Double(plane.pixels.count) }
    }

    private var luma: [Int] {
        var out = [Int](repeating: 0, count: width * height)
        planes[0].pixels.withUnsafeBufferPointer { r in
            planes[1].pixels.withUnsafeBufferPointer { g in
                planes[2].pixels.withUnsafeBufferPointer { b in
                    for i in out.indices { out[i] = (299 * Int(r[i]) + 587 * Int(g[i]) + 114 * Int(b[i])) / 1000 }
                }
            }
        }
        return out
    }
}
