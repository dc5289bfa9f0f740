import XCTest

@testable import PTPWire

final class PTPCodeTests: XCTestCase {
    func testCodeValuesMatchTheWireFacts() {
        XCTAssertEqual(PTPOperationCode.getPartialObject.rawValue, 0x101B)
        XCTAssertEqual(PTPOperationCode.canonEOSGetEvent.rawValue, 0x9116)
        XCTAssertEqual(PTPOperationCode.canonEOSRemoteReleaseOff.rawValue, 0x9129)
        XCTAssertEqual(PTPOperationCode.nikonGetEventEx.rawValue, 0x941C)
        XCTAssertEqual(PTPResponseCode.deviceBusy.rawValue, 0x2019)
        XCTAssertEqual(PTPResponseCode.sessionAlreadyOpen.rawValue, 0x201E)
        XCTAssertEqual(PTPResponseCode.invalidParameter.rawValue, 0x201D)
        XCTAssertEqual(PTPEventCode.captureComplete.rawValue, 0x400D)
        XCTAssertEqual(PTPVendorExtension.sony.rawValue, 0x11)
        XCTAssertEqual(PTPObjectFormat.canonCR3.rawValue, 0xB108)
    }

    func testDescriptionsNameAndHex() {
        XCTAssertEqual(PTPOperationCode.getObject.description, "GetObject (0x1009)")
        XCTAssertEqual(PTPOperationCode(0x9999).description, "0x9999")
        XCTAssertEqual(PTPResponseCode.ok.description, "OK (0x2001)")
        XCTAssertEqual(PTPEventCode.objectAdded.description, "ObjectAdded (0x4002)")
        XCTAssertEqual(PTPObjectFormat.exifJPEG.description, "EXIF/JPEG (0x3801)")
        XCTAssertEqual(PTPVendorExtension.canon.description, "Canon (0x0000000B)")
        XCTAssertEqual(PTPIPPacketType.startData.description, "StartData (9)")
    }

    func testClassificationByCodeFirst() {
        XCTAssertEqual(PTPObjectFormat.exifJPEG.photoKind(fileName: "IMG_1.CR3"), .jpeg)
        XCTAssertEqual(PTPObjectFormat.jfif.photoKind(fileName: ""), .jpeg)
        XCTAssertEqual(PTPObjectFormat.canonCR2.photoKind(fileName: "IMG_1.JPG"), .raw)
        XCTAssertEqual(PTPObjectFormat.canonCR3.photoKind(fileName: "x"), .raw)
        XCTAssertEqual(PTPObjectFormat.sonyARW.photoKind(fileName: "DSC0001.ARW"), .raw)
        XCTAssertEqual(PTPObjectFormat.canonMOV.photoKind(fileName: "MVI_1.JPG"), .other)
        XCTAssertEqual(PTPObjectFormat.association.photoKind(fileName: "100CANON"), .other)
    }

    func testClassificationFallsBackToExtensionForUndefinedAndUnknownCodes() {
        XCTAssertEqual(PTPObjectFormat.nikonNEF, .undefined)
        XCTAssertTrue(PTPObjectFormat.undefined.isRaw(fileName: "DSC_0001.NEF"))
        XCTAssertTrue(PTPObjectFormat.undefined.isJPEG(fileName: "DSC_0001.JPG"))
        XCTAssertTrue(PTPObjectFormat.undefined.isJPEG(fileName: "a.b.jpeg"))
        XCTAssertEqual(PTPObjectFormat.undefined.photoKind(fileName: "notes.txt"), .other)
        XCTAssertEqual(PTPObjectFormat.undefined.photoKind(fileName: ".jpg"), .other)
        XCTAssertEqual(PTPObjectFormat(0xB982).photoKind(fileName: "clip.RAF"), .raw)
        for ext in ["cr2", "cr3", "crw", "nef", "nrw", "arw", "raf", "orf", "rw2", "dng", "raw"] {
            XCTAssertTrue(PTPObjectFormat.undefined.isRaw(fileName: "f." + ext.uppercased()), ext)
        }
    }
}
