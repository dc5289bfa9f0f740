import XCTest

@testable import PTPWire

final class CanonEventParserTests: XCTestCase {
    func testRecordedInitialReplyFromARealBody() throws {
        let data = try Fixtures.load("canon-eos/getevent-initial.bin")
        XCTAssertEqual(data.count, 5941)
        let list = try CanonEOSEventList.parse(data)
        var counts: [UInt32: Int] = [:]
        for record in list.records { counts[record.recordType, default: 0] += 1 }
        XCTAssertEqual(counts, [0xC18A: 98, 0xC189: 84, 0xC1A4: 2])
        XCTAssertEqual(list.records.count, 184)
        XCTAssertEqual(list.terminatorOffset, 5816)
        XCTAssertEqual(list.ignoredTrailingByteCount, 5941 - 5816 - 8)
        XCTAssertTrue(list.newObjects.isEmpty)
        let kinds = list.records.filter {
            switch $0 {
            case .propValueChanged, .availListChanged: return false
            case .unknown(let type, let size): return !(type == 0xC1A4 && size == 12)
            default: return true
            }
        }
        XCTAssertEqual(kinds, [], "only property records and the two 12-byte 0xC1A4 records")
        XCTAssertEqual(list.records.first, .unknown(type: 0xC1A4, size: 12))
        XCTAssertEqual(list.records[1], .propValueChanged(property: 0xD105, value: 3, raw: []))
    }

    func testRecordsRoundTripThroughTheEncoder() throws {
        let records = Samples.canonRecords
        let bytes = CanonEOSEventList.encode(records)
        let list = try CanonEOSEventList.parse(bytes)
        XCTAssertEqual(list.records, records)
        XCTAssertEqual(list.terminatorOffset, bytes.count - 8)
        XCTAssertEqual(list.ignoredTrailingByteCount, 0)
        XCTAssertEqual(list.newObjects.map(\.handle), [0x9000_0101, 0x9000_0102, 0x9000_0103])
        XCTAssertEqual(list.newObjects.map(\.needsTransferComplete), [false, false, true])
    }

    func testObjectAddedExLayout() throws {
        let object = CanonObjectAdded(
            handle: 0x1122_3344, storageID: 0x0001_0001, format: .canonCR3,
            size: 0x0102_0304, parent: 0x9000_0002, filename: "IMG_1.CR3")
        let bytes = CanonEOSEventList.encode([.objectAdded(object)])
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        XCTAssertEqual(u32(0), 50)  // 40 fixed + 9 name + NUL
        XCTAssertEqual(u32(4), 0xC181)
        XCTAssertEqual(u32(8), 0x1122_3344)
        XCTAssertEqual(u32(12), 0x0001_0001)
        XCTAssertEqual(bytes[16], 0x08)
        XCTAssertEqual(bytes[17], 0xB1)
        XCTAssertEqual(u32(28), 0x0102_0304)
        XCTAssertEqual(u32(32), 0x9000_0002)
        XCTAssertEqual(Array(bytes[40..<50]), Array("IMG_1.CR3".utf8) + [0])
        XCTAssertEqual(Array(bytes[50...]), [8, 0, 0, 0, 0, 0, 0, 0])
    }

    func testPropValueChangedIs16Bytes() {
        let bytes = CanonEOSEventList.encode([.propValueChanged(property: 0xD105, value: 3, raw: [])])
        XCTAssertEqual(bytes, [16, 0, 0, 0, 0x89, 0xC1, 0, 0, 0x05, 0xD1, 0, 0, 3, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0])
    }

    func testHandWrittenObjectAddedEx64AndRequestTransfer() throws {
        var writer = PTPDataWriter()
        // 0xC1A7: handle @8, storage @12, format @16, size @28, parent @36, name @44.
        writer.appendU32(52)
        writer.appendU32(0xC1A7)
        writer.appendU32(0x9000_0010)
        writer.appendU32(0x0002_0001)
        writer.appendU16(0x3801)
        writer.appendZeros(10)
        writer.appendU32(777)
        writer.appendU32(0)
        writer.appendU32(0x9000_0003)
        writer.appendU32(0)
        writer.appendBytes(Array("A.JPG".utf8) + [0, 0, 0])
        // 0xC1A9 with a name lacking its NUL at the end of the record.
        writer.appendU32(32)
        writer.appendU32(0xC1A9)
        writer.appendU32(0x9000_0011)
        writer.appendU32(0xB108)
        writer.appendU32(0)
        writer.appendU32(888)
        writer.appendU32(0)
        writer.appendBytes(Array("B.CR".utf8))
        writer.appendU32(8)
        writer.appendU32(0)
        let list = try CanonEOSEventList.parse(writer.bytes)
        XCTAssertEqual(
            list.records,
            [
                .objectAdded(
                    CanonObjectAdded(
                        recordType: 0xC1A7, handle: 0x9000_0010, storageID: 0x0002_0001,
                        format: .exifJPEG, size: 777, parent: 0x9000_0003, filename: "A.JPG")),
                .requestObjectTransfer(
                    CanonObjectAdded(
                        recordType: 0xC1A9, handle: 0x9000_0011, format: .canonCR3,
                        size: 888, filename: "B.CR")),
            ])
    }

    func testRecordPastTheEndIsAnError() {
        var bytes = CanonEOSEventList.encode([.propValueChanged(property: 1, value: 2, raw: [])])
        bytes[0] = 40  // claims 40 bytes, only 24 in total
        XCTAssertThrowsError(try CanonEOSEventList.parse(bytes)) { error in
            XCTAssertEqual(error as? PTPWireError, .recordOutOfBounds(offset: 0, size: 40, available: 24))
        }
        let hugeSize: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0xC1, 0, 0]
        XCTAssertThrowsError(try CanonEOSEventList.parse(hugeSize)) { error in
            XCTAssertEqual(error as? PTPWireError, .recordOutOfBounds(offset: 0, size: 0xFFFF_FFFF, available: 8))
        }
    }

    func testRecordSizeBelowHeaderIsAnError() {
        for size: UInt8 in [0, 1, 7] {
            let bytes: [UInt8] = [16, 0, 0, 0, 0x89, 0xC1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, size, 0, 0, 0, 0, 0, 0, 0]
            XCTAssertThrowsError(try CanonEOSEventList.parse(bytes)) { error in
                XCTAssertEqual(error as? PTPWireError, .recordTooSmall(offset: 16, size: UInt32(size)))
            }
        }
    }

    func testBytesAfterTheTerminatorAreNotRecords() throws {
        let objectRecord = CanonEOSEventList.encode([Samples.canonRecords[1]]).dropLast(8)
        let bytes = CanonEOSEventList.encode([]) + objectRecord + [0xFF, 0xFF, 0xFF]
        let list = try CanonEOSEventList.parse(bytes)
        XCTAssertEqual(list.records, [])
        XCTAssertTrue(list.newObjects.isEmpty)
        XCTAssertEqual(list.terminatorOffset, 0)
        XCTAssertEqual(list.ignoredTrailingByteCount, objectRecord.count + 3)
    }

    func testEndWithoutTerminatorAndStrayBytes() throws {
        let record = Array(CanonEOSEventList.encode([.availListChanged(property: 5, values: [])]).dropLast(8))
        let list = try CanonEOSEventList.parse(record)
        XCTAssertEqual(list.records, [.availListChanged(property: 5, values: [])])
        XCTAssertNil(list.terminatorOffset)
        XCTAssertEqual(try CanonEOSEventList.parse([]).records, [])
        XCTAssertThrowsError(try CanonEOSEventList.parse(record + [8, 0, 0])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 8, available: 3))
        }
    }

    func testKnownTypeTooShortForItsLayoutIsReportedUnknown() throws {
        let bytes: [UInt8] = [20, 0, 0, 0, 0x81, 0xC1, 0, 0] + [UInt8](repeating: 1, count: 12) + [8, 0, 0, 0, 0, 0, 0, 0]
        XCTAssertEqual(try CanonEOSEventList.parse(bytes).records, [.unknown(type: 0xC181, size: 20)])
    }

    func testUnknownRecordsAreSkippedBySize() throws {
        let bytes = CanonEOSEventList.encode([
            .unknown(type: 0xC1FF, size: 30), .objectChanged(type: CanonEOSEventType.objectInfoChangedEx, handle: 4),
        ])
        XCTAssertEqual(
            try CanonEOSEventList.parse(bytes).records,
            [.unknown(type: 0xC1FF, size: 30), .objectChanged(type: CanonEOSEventType.objectInfoChangedEx, handle: 4)])
    }

    /// The 0xC1B8 record as libgphoto2's ptp-pack.c quotes it from an R5 Mark II (commit af0b35bb3):
    /// no file name; handle, format and size where that comment shows them.
    func testRequestObjectTransfer64LFNFromTheLibgphoto2Sample() throws {
        let record: [UInt8] = [
            0x25, 0, 0, 0, 0xB8, 0xC1, 0, 0,
            0x40, 0xC0, 0x32, 0x14, 0x08, 0xB1, 0, 0, 0, 0, 0, 0, 0xD4, 0x1C, 0xA6, 0x02,
            0, 0, 0, 0, 0, 0xC0, 0x32, 0x14, 0x06, 0, 0, 0, 0,
        ]
        let list = try CanonEOSEventList.parse(record + [8, 0, 0, 0, 0, 0, 0, 0])
        guard case .requestObjectTransfer(let object)? = list.records.first else { return XCTFail("\(list.records)") }
        XCTAssertEqual(object.handle, 0x1432_C040)
        XCTAssertEqual(object.format, .canonCR3)
        XCTAssertEqual(object.size, 0x02A6_1CD4)
        XCTAssertEqual(object.filename, "")
        XCTAssertTrue(object.needsTransferComplete)
        XCTAssertEqual(CanonEOSEventList.encode(list.records), record + [8, 0, 0, 0, 0, 0, 0, 0])
    }

    func testObjectAddedEx64LFNCarriesItsNameAtTheEnd() throws {
        let object = CanonObjectAdded(
            recordType: CanonEOSEventType.objectAddedEx64LFN, handle: 0x0A00_0001,
            storageID: 0x0001_0001, format: .exifJPEG, size: 24_000_000, parent: 0x0900_0001,
            filename: "IMG_0042.JPG")
        let bytes = CanonEOSEventList.encode([.objectAdded(object)])
        let list = try CanonEOSEventList.parse(bytes)
        XCTAssertEqual(list.newObjects, [object])
        XCTAssertFalse(object.needsTransferComplete)
        // The name is UTF-16 with a one-byte length prefix, the last thing in the record.
        let recordSize = Int(bytes[0])
        XCTAssertEqual(bytes[recordSize - 27], 13)
        XCTAssertEqual(Array(bytes[recordSize - 26..<recordSize - 22]), [0x49, 0, 0x4D, 0])
    }

    func testObjectAddedEx64LFNWithoutANameGivesAnEmptyName() throws {
        var record: [UInt8] = [52, 0, 0, 0, 0xB6, 0xC1, 0, 0, 7, 0, 0, 0]
        record += [UInt8](repeating: 0, count: 52 - record.count)
        let list = try CanonEOSEventList.parse(record + [8, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(list.newObjects.map(\.handle), [7])
        XCTAssertEqual(list.newObjects.map(\.filename), [""])
    }

    /// A malformed record costs the rest of that reply, never the records before it.
    func testParsePrefixKeepsTheRecordsBeforeAMalformedOne() {
        let good = Array(CanonEOSEventList.encode([.objectChanged(type: CanonEOSEventType.objectInfoChangedEx, handle: 4)]).dropLast(8))
        let broken: [UInt8] = [4, 0, 0, 0, 0x81, 0xC1, 0, 0]
        let list = CanonEOSEventList.parsePrefix(good + broken + good)
        XCTAssertEqual(list.records, [.objectChanged(type: CanonEOSEventType.objectInfoChangedEx, handle: 4)])
        XCTAssertEqual(list.malformation, .recordTooSmall(offset: good.count, size: 4))
        XCTAssertThrowsError(try CanonEOSEventList.parse(good + broken))
        XCTAssertNil(CanonEOSEventList.parsePrefix(good).malformation)
    }

    /// A shot protected or rated: ObjectInfoChangedEx (0xC187, ObjectAddedEx's layout, which
    /// libgphoto2 skips when shorter than its name field), ObjectContentChanged (0xC188, the
    /// handle alone) and the 64-bit forms, each handle once however many records name it.
    func testChangeRecordsNameTheChangedFilesOnce() throws {
        let types = [
            CanonEOSEventType.objectInfoChangedEx, CanonEOSEventType.objectContentChanged, CanonEOSEventType.objectInfoChangedEx64,
            CanonEOSEventType.objectInfoChangedEx64LFN,
        ]
        let records = types.map { CanonEOSEventRecord.objectChanged(type: $0, handle: 0x9000_0101) }
        let bytes = CanonEOSEventList.encode(records + [.objectChanged(type: CanonEOSEventType.objectContentChanged, handle: 7)])
        XCTAssertEqual(Int(bytes[0]), 41, "0xC187 reaches past ObjectAddedEx's name field at 40")
        let list = try CanonEOSEventList.parse(bytes)
        XCTAssertEqual(list.records.prefix(4).map(\.recordType), types)
        XCTAssertEqual(list.changedObjects, [0x9000_0101, 7])
        XCTAssertTrue(list.newObjects.isEmpty, "a change is not a new photo")
        let short: [UInt8] = [8 + 3, 0, 0, 0, 0x88, 0xC1, 0, 0, 1, 2, 3]
        XCTAssertEqual(try CanonEOSEventList.parse(short).records, [.unknown(type: 0xC188, size: 11)], "too short for its handle")
    }

    /// The Direct Transfer button (0xC190, 0xC1AA) names a card photo by its handle: a
    /// transfer request, not a change.
    func testTheTransferButtonRecordsAreTransferRequests() throws {
        let bytes = CanonEOSEventList.encode([
            .objectChanged(type: CanonEOSEventType.requestObjectTransferDT, handle: 5),
            .objectChanged(type: CanonEOSEventType.requestObjectTransferDT64, handle: 6),
            .objectChanged(type: CanonEOSEventType.objectContentChanged, handle: 7),
        ])
        let list = try CanonEOSEventList.parse(bytes)
        XCTAssertEqual(list.transferButtonObjects, [5, 6])
        XCTAssertEqual(list.changedObjects, [7])
    }
}
