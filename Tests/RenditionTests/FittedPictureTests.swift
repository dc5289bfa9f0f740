import Foundation
import TestSupport
import XCTest

@testable import Rendition

/// The loupe's fitted picture: the asked long edge, upright (the camera's top-left red mark where
/// a viewer sees it), and a photo already smaller re-encoded upright at its own size, never sent
/// sideways as it is.
final class FittedPictureTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try TestPaths.makeTemporaryDirectory("relay-fitted")
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    func testAPortraitIsFittedUprightToTheLongEdge() throws {
        let photo = folder.appendingPathComponent("portrait.jpg")
        try CameraJPEG.write(to: photo, .init(width: 1001, height: 667, orientation: 6, seed: 4))
        let picture = try fitted(photo, longEdge: 640)
        // Orientation 6 turns the stored top-left corner to the top-right.
        XCTAssertEqual([picture.width, picture.height], [426, 640])
        XCTAssertGreaterThan(picture.topRight[0], 200, "the red mark is top-right once upright: \(picture.topRight)")
        XCTAssertLessThan(picture.topLeft[0] - picture.topLeft[1], 150, "no red mark top-left: \(picture.topLeft)")
    }

    func testAPhotoSmallerThanTheEdgeIsTurnedAtItsOwnSize() throws {
        let photo = folder.appendingPathComponent("small.jpg")
        try CameraJPEG.write(to: photo, .init(width: 600, height: 400, orientation: 8, seed: 5))
        let picture = try fitted(photo, longEdge: 640)
        XCTAssertEqual([picture.width, picture.height], [400, 600])
        // Orientation 8 turns the stored top-left corner to the bottom-left: neither top corner is red.
        XCTAssertLessThan(picture.topLeft[0] - picture.topLeft[1], 150, "\(picture.topLeft)")
        XCTAssertLessThan(picture.topRight[0] - picture.topRight[1], 150, "\(picture.topRight)")
    }

    func testANonJPEGIsUndecodable() throws {
        let text = folder.appendingPathComponent("note.jpg")
        try Data("not a photo".utf8).write(to: text)
        let fd = open(text.path, O_RDONLY)
        defer { close(fd) }
        XCTAssertThrowsError(try PhotoHead.read(fd)) { XCTAssertEqual($0 as? PictureError, .undecodable("it is not a JPEG")) }
        XCTAssertThrowsError(try FittedPicture.make(fd: fd, longEdge: 640, quality: 80)) {
            guard case .undecodable? = $0 as? PictureError else { return XCTFail("\($0)") }
        }
    }

    private func fitted(_ photo: URL, longEdge: Int) throws -> (width: Int, height: Int, topLeft: [Int], topRight: [Int]) {
        let fd = open(photo.path, O_RDONLY)
        defer { close(fd) }
        let jpeg = try FittedPicture.make(fd: fd, longEdge: longEdge, quality: 80)
        let out = folder.appendingPathComponent("fitted-\(UUID().uuidString).jpg")
        try Data(jpeg).write(to: out)
        return try CameraJPEG.probe(out)
    }
}
