import PTPWire
import XCTest

/// Canon EOS GetObjectInfoEx entries, read from a body's own bytes: the hex dump of an EOS
/// entry that libgphoto2 quotes above its `PTP_cefe_*` offsets (camlibs/ptp2/ptp-pack.c), size
/// 0x38, IMG_0199.JPG of 2,217,241 bytes, flags 0x21 (0x01: read-only, as `ptp_list_folder_eos`
/// maps it; 0x20: not yet archived).
final class CanonFolderEntryTests: XCTestCase {
    private let quoted: [UInt8] =
        [0x01, 0, 0, 0]  // one entry
        + [0x38, 0x00, 0x00, 0x00, 0x72, 0x0C, 0x74, 0x92, 0x01, 0x00, 0x02, 0x00, 0x01, 0x38, 0x00, 0x00]
        + [0x00, 0x00, 0x00, 0x00, 0x21, 0x00, 0x00, 0x00, 0x19, 0xD5, 0x21, 0x00, 0x00, 0x00, 0x74, 0x92]
        + [0x70, 0x0C, 0x74, 0x92] + Array("IMG_0199.JPG".utf8) + [0, 0, 0, 0, 0x10, 0x7C, 0x98, 0x4D]

    func testTheQuotedEntryReadsAsLibgphoto2ReadsIt() {
        let entries = CanonFolderEntry.parse(quoted)
        XCTAssertEqual(entries.count, 1)
        XCTAssertEqual(entries.first?.handle, 0x9274_0C72)
        XCTAssertEqual(entries.first?.storageID, 0x0002_0001)
        XCTAssertEqual(entries.first?.format, 0x3801)
        XCTAssertEqual(entries.first?.size, 2_217_241)
        XCTAssertEqual(entries.first?.name, "IMG_0199.JPG")
        XCTAssertEqual(entries.first?.isProtected, true)
    }

    func testWhatTheSimulatorWritesReadsBackAndACutReplyIsReadAsFarAsItIsWhole() {
        let written = [
            CanonFolderEntry(handle: 7, storageID: 0x10001, format: 0x3801, flags: 0, size: 1_000, name: "IMG_0007.JPG"),
            CanonFolderEntry(handle: 8, storageID: 0x10001, format: 0x3801, flags: 1, size: 2_000, name: "IMG_0008.JPG"),
        ]
        let bytes = CanonFolderEntry.encode(written)
        XCTAssertEqual(CanonFolderEntry.parse(bytes), written)
        XCTAssertEqual(CanonFolderEntry.parse(Array(bytes.dropLast(10))), [written[0]])
        XCTAssertEqual(CanonFolderEntry.parse([0xFF, 0xFF, 0xFF, 0xFF]), [], "a count with no entries")
    }
}
