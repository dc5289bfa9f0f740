import Foundation
import PTPWire
import Tether
import XCTest

/// The pure rules of the tether: poll interval, which objects are taken, which dialect a camera speaks.
final class CameraRulesTests: XCTestCase {
    func testPollIntervalFollowsTheDesignRule() {
        var interval = AdaptivePollInterval()
        XCTAssertEqual(interval.current, 0.05, accuracy: 1e-9)
        let idle = (0..<5).map { _ in interval.record(activity: false) }
        XCTAssertEqual(idle[0], 0.10, accuracy: 1e-9)
        XCTAssertEqual(idle[1], 0.10, accuracy: 1e-9, "never above 100 ms")
        XCTAssertEqual(idle[4], 0.10, accuracy: 1e-9, "never above 100 ms")
        var designCeiling = AdaptivePollInterval(maximum: 0.2)
        let slower = (0..<5).map { _ in designCeiling.record(activity: false) }
        for (wait, expected) in zip(slower, [0.10, 0.15, 0.20, 0.20, 0.20]) {
            XCTAssertEqual(wait, expected, accuracy: 1e-9, "the step and a given ceiling still apply")
        }
        XCTAssertEqual(interval.record(activity: true), 0.05, accuracy: 1e-9, "back to 50 ms after an event")
    }

    private func object(_ name: String, _ format: PTPObjectFormat) -> CameraObject {
        CameraObject(handle: 1, info: PTPObjectInfo(storageID: 0x10001, objectFormat: format, compressedSize: 100,
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
        again = CameraObject(handle: 1, info: PTPObjectInfo(storageID: 0x10001, objectFormat: .exifJPEG, compressedSize: 100,
                                                            filename: "IMG_0001.JPG", captureDate: "20261123T101011"))
        XCTAssertNotEqual(first.identityKey, again.identityKey, "a card reformatted and renumbered is a new photo")
    }

    private func info(_ vendor: PTPVendorExtension, _ manufacturer: String, _ operations: [PTPOperationCode]) -> PTPDeviceInfo {
        PTPDeviceInfo(vendorExtensionID: vendor, operationsSupported: operations.map(\.rawValue),
                      manufacturer: manufacturer, model: "M", deviceVersion: "1", serialNumber: "S")
    }

    func testDialect() {
        XCTAssertEqual(CameraDialect.of(info(.canon, "Canon Inc.", [.canonEOSGetEvent])), .canonEOS)
        XCTAssertEqual(CameraDialect.of(info(.microsoft, "Canon Inc.", [.canonEOSGetEvent])), .canonEOS,
                       "Canon bodies that report the Microsoft vendor id")
        XCTAssertEqual(CameraDialect.of(info(.canon, "Canon Inc.", [])), .standard,
                       "a Canon without EOS GetEvent (PowerShot) uses standard events")
        XCTAssertEqual(CameraDialect.of(info(.nikon, "Nikon", [.nikonGetEvent, .nikonGetEventEx])), .nikon(getEventEx: true))
        XCTAssertEqual(CameraDialect.of(info(.microsoft, "Nikon Corporation", [.nikonGetEvent])), .nikon(getEventEx: false))
        XCTAssertEqual(CameraDialect.of(info(.nikon, "Nikon", [])), .standard)
        XCTAssertEqual(CameraDialect.of(info(.microsoft, "Sony", [.canonEOSGetEvent])), .standard,
                       "an operation code alone does not make a camera Canon")
    }
}
