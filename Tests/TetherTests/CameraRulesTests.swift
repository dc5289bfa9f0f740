import Foundation
import PTPWire
import Tether
import XCTest

/// The pure rules of the tether: poll interval, which objects are taken, which dialect a camera speaks.
final class CameraRulesTests: XCTestCase {
    func testPollIntervalHoldsTheMinimumWhileShootingThenBacksOffToTheDesignCeiling() throws {
        var interval = AdaptivePollInterval()
        XCTAssertEqual(interval.current, 0.05, accuracy: 1e-9)
        // A minute of quiet at 50 ms is 1200 polls: a pause between shots keeps the fast poll.
        let pause = (0..<1100).map { _ in interval.record(activity: false) }
        XCTAssertEqual(pause.max() ?? 0, 0.05, accuracy: 1e-9)
        XCTAssertEqual(interval.record(activity: true), 0.05, accuracy: 1e-9)
        let idle = (0..<1210).map { _ in interval.record(activity: false) }
        let firstStep = try XCTUnwrap(idle.firstIndex { $0 > 0.05 + 1e-9 })
        XCTAssertEqual(Double(firstStep) * 0.05, 60, accuracy: 0.1, "held for 60 s")
        for (wait, expected) in zip(idle[firstStep...], [0.10, 0.15, 0.20, 0.20]) {
            XCTAssertEqual(wait, expected, accuracy: 1e-9, "then +50 ms per idle poll, at most 200 ms")
        }
        XCTAssertEqual(interval.record(activity: true), 0.05, accuracy: 1e-9, "back to 50 ms after an event")

        var short = AdaptivePollInterval(hold: 0.175)
        let steps = (0..<7).map { _ in short.record(activity: false) }
        for (wait, expected) in zip(steps, [0.05, 0.05, 0.05, 0.10, 0.15, 0.20, 0.20]) {
            XCTAssertEqual(wait, expected, accuracy: 1e-9)
        }
    }

    private func object(_ name: String, _ format: PTPObjectFormat) -> CameraObject {
        CameraObject(
            handle: 1,
            info: PTPObjectInfo(
                storageID: 0x10001, objectFormat: format, compressedSize: 100,
                filename: name, captureDate: "20261123T101010"))
    }

    func testTakeDecision() {
        let jpeg = object("IMG_0001.JPG", .exifJPEG)
        let raw = object("IMG_0001.CR3", .canonCR3)
        let movie = object("MVI_0002.MOV", .canonMOV)
        let folder = object("100CANON", .association)
        XCTAssertEqual(TakeDecision.decide(jpeg, seen: false, existing: false, includeRAW: false), .take)
        XCTAssertEqual(TakeDecision.decide(raw, seen: false, existing: false, includeRAW: false), .skipRAW)
        XCTAssertEqual(TakeDecision.decide(raw, seen: false, existing: false, includeRAW: true), .take)
        XCTAssertEqual(TakeDecision.decide(movie, seen: false, existing: false, includeRAW: true), .skipOther)
        XCTAssertEqual(TakeDecision.decide(folder, seen: false, existing: false, includeRAW: true), .folder)
        XCTAssertEqual(TakeDecision.decide(jpeg, seen: true, existing: false, includeRAW: false), .alreadyTaken)
        XCTAssertEqual(TakeDecision.decide(jpeg, seen: false, existing: true, includeRAW: false), .existing)
        XCTAssertEqual(TakeDecision.decide(jpeg, seen: true, existing: true, includeRAW: false), .alreadyTaken)
    }

    func testIdentityIgnoresTheHandleButNotSizeOrDate() {
        let first = object("IMG_0001.JPG", .exifJPEG)
        var again = CameraObject(handle: 99, info: first.info)
        XCTAssertEqual(first.identityKey, again.identityKey, "a camera may renumber handles on reconnect")
        again = CameraObject(
            handle: 1,
            info: PTPObjectInfo(
                storageID: 0x10001, objectFormat: .exifJPEG, compressedSize: 100,
                filename: "IMG_0001.JPG", captureDate: "20261123T101011"))
        XCTAssertNotEqual(first.identityKey, again.identityKey, "a card reformatted and renumbered is a new photo")
    }
}
