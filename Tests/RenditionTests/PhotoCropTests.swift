import Foundation
import RelayCore
import TestSupport
import XCTest

@testable import Rendition

/// The loupe's 100 % crop against libjpeg-turbo's own whole decode (djpeg) of the same photo,
/// turned upright by the test: the same pixels, within what a q80 re-encoding changes, in every
/// orientation a camera writes; and a 45-megapixel photo cropped without decoding it whole.
final class PhotoCropTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try TestPaths.makeTemporaryDirectory("relay-crop")
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    func testTheCropIsThePhotosOwnPixelsUprightInEveryOrientation() throws {
        for orientation in [1, 6, 3, 8] {
            let photo = folder.appendingPathComponent("o\(orientation).jpg")
            try CameraJPEG.write(to: photo, .init(width: 1001, height: 667, orientation: orientation, seed: 3))
            let reference = try RGBImage.decoding(photo, in: folder)
            let fd = open(photo.path, O_RDONLY)
            defer { close(fd) }
            let head = try PhotoHead.read(fd)
            XCTAssertEqual(head.orientation.rawValue, orientation)
            let upright = head.upright
            let turned = reference.oriented(head.orientation)
            // An odd, unaligned rectangle; one pushed against the bottom-right corner; the whole
            // short side.
            let asked = [(0.37, 0.41, 301, 203), (1.0, 1.0, 400, 300), (0.5, 0.5, 700, 2400)]
            for (x, y, width, height) in asked {
                let rect = PhotoCrop.upright(x: x, y: y, width: width, height: height, in: head)
                XCTAssertLessThanOrEqual(rect.left + rect.width, upright.width)
                XCTAssertLessThanOrEqual(rect.top + rect.height, upright.height)
                // Fine quality, so that what the encoder loses of the test photo's sensor noise
                // does not hide a crop one pixel off.
                let jpeg = try PhotoCrop.make(fd: fd, head: head, upright: rect, quality: 95)
                let crop = try RGBImage.decoding(try write(jpeg, "crop-\(orientation).jpg"), in: folder)
                XCTAssertEqual([crop.width, crop.height], [rect.width, rect.height], "orientation \(orientation), \(rect)")
                let error = crop.meanDifference(turned.cropped(rect))
                XCTAssertLessThan(error, 3, "orientation \(orientation), \(rect): mean difference \(error)")
                for (made, photo) in zip(crop.meanColour, turned.cropped(rect).meanColour) {
                    XCTAssertEqual(made, photo, accuracy: 2, "orientation \(orientation), \(rect): colours kept")
                }
                var shifted = rect
                if rect.width < upright.width {
                    shifted.left += rect.left >= 1 ? -1 : 1
                } else if rect.height < upright.height {
                    shifted.top += rect.top >= 1 ? -1 : 1
                } else {
                    continue  // the whole picture
                }
                let elsewhere = crop.meanDifference(turned.cropped(shifted))
                XCTAssertGreaterThan(elsewhere, error * 2, "orientation \(orientation): 1 px off must show (\(elsewhere) vs \(error))")
            }
        }
    }

    /// The same coefficients in other forms (progressive, restart markers: jpegtran, without
    /// loss) give the same crop, byte for byte; a grey photo gives a grey crop.
    func testProgressiveRestartAndGreyFormsCropAlike() throws {
        let photo = folder.appendingPathComponent("baseline.jpg")
        try CameraJPEG.write(to: photo, .init(width: 1001, height: 667, orientation: 6, seed: 3))
        let jpegtran = try JPEGFixtures.tool("jpegtran")
        func crop(_ file: URL) throws -> (jpeg: [UInt8], head: PhotoHead) {
            let fd = open(file.path, O_RDONLY)
            defer { close(fd) }
            let head = try PhotoHead.read(fd)
            let rect = PhotoCrop.upright(x: 0.61, y: 0.33, width: 333, height: 222, in: head)
            return (try PhotoCrop.make(fd: fd, head: head, upright: rect, quality: 80), head)
        }
        let baseline = try crop(photo)
        for (name, options) in [("progressive", ["-progressive"]), ("restart", ["-restart", "1"]), ("grey", ["-grayscale"])] {
            let form = folder.appendingPathComponent("\(name).jpg")
            let result = try Subprocess.run(jpegtran, ["-copy", "all"] + options + ["-outfile", form.path, photo.path])
            XCTAssertEqual(result.status, 0, result.stderr)
            let made = try crop(form)
            XCTAssertEqual(made.head.orientation, .right, name)
            if name == "grey" {
                let out = try write(made.jpeg, "grey-crop.jpg")
                let fd = open(out.path, O_RDONLY)
                defer { close(fd) }
                let head = try PhotoHead.read(fd)
                XCTAssertEqual([head.width, head.height, head.components], [333, 222, 1])
            } else {
                XCTAssertEqual(made.jpeg, baseline.jpeg, name)
            }
        }
    }

    func testTheUprightRectangleMapsOntoTheStoredPixels() {
        let rect = PixelRect(left: 10, top: 20, width: 30, height: 40)
        let cases: [(ExifOrientation, PixelRect)] = [
            (.up, rect),
            (.down, PixelRect(left: 100 - 40, top: 60 - 60, width: 30, height: 40)),
            (.right, PixelRect(left: 20, top: 60 - 40, width: 40, height: 30)),
            (.left, PixelRect(left: 100 - 60, top: 10, width: 40, height: 30)),
        ]
        for (orientation, stored) in cases {
            XCTAssertEqual(
                PhotoCrop.stored(rect, in: PhotoHead(width: 100, height: 60, orientation: orientation)), stored, "\(orientation)")
        }
        let head = PhotoHead(width: 8192, height: 5464, orientation: .right)
        XCTAssertEqual(
            PhotoCrop.upright(x: 0.5, y: 0.5, width: 10, height: 9000, in: head), PixelRect(left: 2700, top: 2896, width: 64, height: 2400),
            "sides clamped to 64…2400, centred")
        XCTAssertEqual(
            PhotoCrop.upright(x: 0, y: 1, width: 800, height: 600, in: head), PixelRect(left: 0, top: 8192 - 600, width: 800, height: 600))
        XCTAssertEqual(
            PhotoCrop.upright(x: .nan, y: 0.5, width: 800, height: 600, in: PhotoHead(width: 500, height: 100)),
            PixelRect(left: 0, top: 0, width: 500, height: 100))
    }

    /// A 45-megapixel photo (8192×5464, as a Canon R5's) cropped at its centre: the asked size,
    /// and (printed, for BENCHMARKS) the time against decoding the photo whole.
    func testALargePhotosCropHasTheAskedSize() throws {
        let photo = folder.appendingPathComponent("large.jpg")
        try CameraJPEG.write(to: photo, .init(width: 8192, height: 5464, seed: 2))
        let fd = open(photo.path, O_RDONLY)
        defer { close(fd) }
        let head = try PhotoHead.read(fd)
        XCTAssertEqual([head.width, head.height], [8192, 5464])
        var cropTimes: [Double] = []
        var jpeg: [UInt8] = []
        let rect = PhotoCrop.upright(x: 0.5, y: 0.5, width: 2048, height: 1536, in: head)
        for _ in 0..<3 {
            let started = Date()
            jpeg = try PhotoCrop.make(fd: fd, head: head, upright: rect, quality: 80)
            cropTimes.append(Date().timeIntervalSince(started))
        }
        let out = try write(jpeg, "large-crop.jpg")
        let outFD = open(out.path, O_RDONLY)
        defer { close(outFD) }
        let made = try PhotoHead.read(outFD)
        XCTAssertEqual([made.width, made.height], [2048, 1536])
        let bottom = PhotoCrop.upright(x: 1, y: 1, width: 2400, height: 2400, in: head)
        let bottomStarted = Date()
        _ = try PhotoCrop.make(fd: fd, head: head, upright: bottom, quality: 80)
        let bottomTime = Date().timeIntervalSince(bottomStarted)
        let started = Date()
        _ = try FittedPicture.make(fd: fd, longEdge: 8192, quality: 80)
        let whole = Date().timeIntervalSince(started)
        let fitStarted = Date()
        _ = try FittedPicture.make(fd: fd, longEdge: 1280, quality: 80)
        let fitted = Date().timeIntervalSince(fitStarted)
        print(
            "45 MP photo (\(try Data(contentsOf: photo).count / 1_000_000) MB): centre crop 2048×1536 "
                + cropTimes.map { String(format: "%.0f ms", $0 * 1000) }.joined(separator: ", ")
                + String(
                    format: "; bottom-right 2400×2400 %.0f ms; whole photo decoded and re-encoded %.0f ms", bottomTime * 1000, whole * 1000)
                + String(format: "; fitted to 1280 px %.0f ms; crop JPEG %d KB", fitted * 1000, jpeg.count / 1000))
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}
