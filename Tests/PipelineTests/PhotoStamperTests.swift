import Foundation
import RelayCore
import RunEvents
import Spool
import Stamp
import TestSupport
import XCTest

@testable import Pipeline

/// What a run does with a photo it cannot stamp: it goes as the camera made it (no prefix),
/// with one line per photo saying why, or once for every photo that is not a JPEG; a template
/// changed during the run is taken for the next photo.
final class PhotoStamperTests: XCTestCase {
    private func version(_ decision: PhotoStamper.Decision) -> Int? {
        if case .stamped(let stamped) = decision { return stamped.version }
        return nil
    }

    private func asItIs(_ decision: PhotoStamper.Decision) -> Bool {
        if case .asItIs = decision { return true }
        return false
    }

    private func entry(_ name: String, id: String) -> SpoolEntry {
        SpoolEntry(
            id: id, sequence: 1, source: "folder:/drop", cameraFileName: name, uploadName: name, bytes: 0, capturedAt: Date(),
            spooledAt: Date(), idempotencyKey: id)
    }

    func testACorruptHeaderGoesUnstampedWithOneLineAndATemplateChangeIsTakenAtOnce() throws {
        let root = try TestPaths.makeTemporaryDirectory("stamper")
        let home = RelayHome(root: root)
        try StampStore(home: home).set(["creator": "Jane Doe"])
        let bus = RunEventBus()
        let lines = LockedBox<[String]>([])
        bus.subscribeInline { event in
            if case .run(.notice(let line, _)) = event.event { lines.withLockedValue { $0.append(line) } }
        }
        let stamper = PhotoStamper(home: home, bus: bus)
        let broken = root.appendingPathComponent("IMG_0009.JPG")
        try Data([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xF0] + [UInt8](repeating: 7, count: 2_000) + [0xFF, 0xD9]).write(to: broken)
        XCTAssertTrue(asItIs(stamper.stamp(entry("IMG_0009.JPG", id: "a"), filePath: broken.path, growing: nil)))
        XCTAssertTrue(asItIs(stamper.stamp(entry("IMG_0009.JPG", id: "a"), filePath: broken.path, growing: nil)))
        let raw = root.appendingPathComponent("IMG_0010.CR3")
        try Data(Array("II*\0".utf8) + [UInt8](repeating: 0, count: 64)).write(to: raw)
        XCTAssertTrue(asItIs(stamper.stamp(entry("IMG_0010.CR3", id: "b"), filePath: raw.path, growing: nil)))
        XCTAssertTrue(asItIs(stamper.stamp(entry("IMG_0011.CR3", id: "c"), filePath: raw.path, growing: nil)))
        let said = lines.withLockedValue { $0 }
        XCTAssertEqual(said.filter { $0.contains("IMG_0009.JPG goes as the camera made it, without its stamp") }.count, 1, "\(said)")
        XCTAssertEqual(said.filter { $0.contains("not JPEGs") }.count, 1, "said once: \(said)")

        let photo = root.appendingPathComponent("IMG_0012.JPG")
        try CameraJPEG.write(to: photo, .init(width: 64, height: 48, seed: 3))
        XCTAssertEqual(version(stamper.stamp(entry("IMG_0012.JPG", id: "d"), filePath: photo.path, growing: nil)), 1)
        // A file's time has a granularity: the change is made to show as one.
        try StampStore(home: home).set(["creator": "John Roe"])
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: home.stampFile.path)
        XCTAssertEqual(version(stamper.stamp(entry("IMG_0012.JPG", id: "d"), filePath: photo.path, growing: nil)), 2)
    }
}
