import Foundation
import RelayCore
import TestSupport
import XCTest

@testable import Rendition

/// A photo already within the rendition's size whose EXIF says it is turned (a portrait held
/// sideways, orientation 6) is made upright when its EXIF is left out: a copy without the EXIF
/// would show it on its side (the venue wall's pictures, a gallery that strips metadata).
final class UprightSmallPhotoTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try TestPaths.makeTemporaryDirectory("upright-small")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    func testATurnedSmallPhotoWithoutItsExifIsMadeUpright() throws {
        let photo = folder.appendingPathComponent("portrait.jpg")
        try CameraJPEG.write(to: photo, .init(width: 1200, height: 800, orientation: 6, seed: 5))
        let maker = try RenditionMaker(spec: RenditionSpec(maxEdge: 1920, quality: 82, keepMetadata: false))
        let output = folder.appendingPathComponent("upright.jpg")
        guard case .made(_, let width, let height, _) = try maker.make(source: photo, destination: output) else {
            return XCTFail("no picture made")
        }
        XCTAssertEqual([width, height], [800, 1200], "turned to stand upright, at its own size")
        let probed = try CameraJPEG.probe(output)
        XCTAssertEqual([probed.width, probed.height], [800, 1200], "the pixels stand upright")
        XCTAssertNil(try CameraJPEG.exif(output)["EXIF:Orientation"], "and no EXIF turns them again")
    }

    func testATurnedSmallPhotoKeepingItsExifIsCopiedWithItsOrientation() throws {
        let photo = folder.appendingPathComponent("portrait.jpg")
        try CameraJPEG.write(to: photo, .init(width: 1200, height: 800, orientation: 6, gps: true, seed: 5))
        let maker = try RenditionMaker(spec: RenditionSpec(maxEdge: 1920, stripGPS: true, keepMetadata: true))
        let output = folder.appendingPathComponent("copy.jpg")
        guard case .made = try maker.make(source: photo, destination: output) else { return XCTFail("no copy made") }
        XCTAssertEqual(try CameraJPEG.probe(output).width, 1200, "pixels untouched")
        XCTAssertEqual(try CameraJPEG.exif(output)["EXIF:Orientation"] as? Int, 6, "a viewer turns it by its EXIF")
    }
}
