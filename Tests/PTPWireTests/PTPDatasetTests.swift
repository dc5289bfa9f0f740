import XCTest

@testable import PTPWire

final class PTPDatasetTests: XCTestCase {
    func testDeviceInfoRoundTrips() throws {
        let info = Samples.deviceInfo
        XCTAssertEqual(try PTPDeviceInfo(decoding: info.encoded()), info)
        XCTAssertTrue(info.supports(.canonEOSGetEvent))
        XCTAssertFalse(info.supports(.nikonGetEventEx))
    }

    func testDeviceInfoLayout() throws {
        let info = PTPDeviceInfo(
            vendorExtensionID: .nikon, vendorExtensionDescription: "",
            operationsSupported: [0x1001], manufacturer: "N", model: "", deviceVersion: "", serialNumber: "")
        var expected: [UInt8] = [100, 0, 0x0A, 0, 0, 0, 100, 0, 0, 0, 0]
        expected += [1, 0, 0, 0, 0x01, 0x10]  // operations
        expected += [UInt8](repeating: 0, count: 16)  // four empty arrays
        expected += [2, 0x4E, 0, 0, 0, 0, 0, 0]  // "N", three empty strings
        XCTAssertEqual(info.encoded(), expected)
    }

    func testDeviceInfoTruncatedAnywhereIsTypedError() {
        let bytes = Samples.deviceInfo.encoded()
        for cut in 0..<bytes.count {
            XCTAssertThrowsError(try PTPDeviceInfo(decoding: Array(bytes[..<cut])), "cut at \(cut)") { error in
                guard case .truncated = error as? PTPWireError else {
                    return XCTFail("cut at \(cut): \(error)")
                }
            }
        }
    }

    func testStorageInfoRoundTripsAndLayout() throws {
        let info = Samples.storageInfo
        let bytes = info.encoded()
        XCTAssertEqual(try PTPStorageInfo(decoding: bytes), info)
        XCTAssertEqual(Array(bytes[6..<14]), [0x00, 0x80, 0xB2, 0xE6, 0x0E, 0x00, 0x00, 0x00])  // 64e9 = 0xEE6B28000
        XCTAssertEqual(bytes[26], 4)  // "SD1" count incl. NUL, after 26 fixed bytes
    }

    func testObjectInfoRoundTrips() throws {
        let info = Samples.objectInfo
        XCTAssertEqual(try PTPObjectInfo(decoding: info.encoded()), info)
        XCTAssertEqual(info.photoKind, .jpeg)
    }

    func testObjectInfoFieldOffsets() throws {
        var info = Samples.objectInfo
        info.associationType = 0xA1A2
        info.associationDesc = 0xB1B2_B3B4
        info.sequenceNumber = 0xC1C2_C3C4
        let bytes = info.encoded()
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        XCTAssertEqual(u32(0), info.storageID)
        XCTAssertEqual(u16(4), 0x3801)
        XCTAssertEqual(u32(8), info.compressedSize)
        XCTAssertEqual(u16(12), 0x3808)
        XCTAssertEqual(u32(14), info.thumbCompressedSize)
        XCTAssertEqual(u32(18), 160)
        XCTAssertEqual(u32(22), 120)
        XCTAssertEqual(u32(26), 6000)
        XCTAssertEqual(u32(30), 4000)
        XCTAssertEqual(u32(34), 24)
        XCTAssertEqual(u32(38), info.parentObject)
        XCTAssertEqual(u16(42), 0xA1A2)
        XCTAssertEqual(u32(44), 0xB1B2_B3B4)
        XCTAssertEqual(u32(48), 0xC1C2_C3C4)
        XCTAssertEqual(bytes[52], UInt8("IMG_0001.JPG".utf16.count + 1))
        XCTAssertEqual(bytes[53], UInt8(ascii: "I"))
    }

    func testObjectInfoWithoutDatesDecodesWithEmptyDates() throws {
        var writer = PTPDataWriter()
        writer.appendBytes(Samples.objectInfo.encoded().prefix(52))
        writer.appendString("DSC_0001.NEF")
        let info = try PTPObjectInfo(decoding: writer.bytes)
        XCTAssertEqual(info.filename, "DSC_0001.NEF")
        XCTAssertEqual(info.captureDate, "")
        XCTAssertEqual(info.keywords, "")
        XCTAssertThrowsError(try PTPObjectInfo(decoding: Array(writer.bytes.prefix(52))))
    }

    func testFolderObjectInfo() throws {
        let folder = PTPObjectInfo(
            storageID: 0x0001_0001, objectFormat: .association, compressedSize: 0,
            associationType: PTPObjectInfo.associationGenericFolder, filename: "DCIM")
        let decoded = try PTPObjectInfo(decoding: folder.encoded())
        XCTAssertTrue(decoded.isFolder)
        XCTAssertEqual(decoded, folder)
    }
}
