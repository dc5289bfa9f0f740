import FTPWire
import Foundation
import XCTest

final class FTPReplyAndPathTests: XCTestCase {
    func testRepliesAreSingleOrMultiLineAndCannotBeSplitByTheirText() {
        XCTAssertEqual(String(decoding: FTPReply(226, "done").encoded, as: UTF8.self), "226 done\r\n")
        XCTAssertEqual(
            String(decoding: FTPReply(211, lines: ["Features:", " SIZE", "End"]).encoded, as: UTF8.self),
            "211-Features:\r\n SIZE\r\n211 End\r\n")
        XCTAssertEqual(String(decoding: FTPReply(550, "a\r\n226 fake").encoded, as: UTF8.self), "550 a  226 fake\r\n")
        XCTAssertEqual(
            String(decoding: FTPReply(211, lines: ["x", "211 inner", "End"]).encoded, as: UTF8.self),
            "211-x\r\n 211 inner\r\n211 End\r\n")
        XCTAssertEqual(String(decoding: FTPReply.folder("/a\"b", "created").encoded, as: UTF8.self), "257 \"/a\"\"b\" created\r\n")
    }

    func testPathsResolveInsideTheUsersFolderOnly() throws {
        let folder = try FTPVirtualPath.resolve("/DCIM/100CANON", from: .root)
        XCTAssertEqual(folder.description, "/DCIM/100CANON")
        XCTAssertEqual(try FTPVirtualPath.resolve("IMG_0001.JPG", from: folder).description, "/DCIM/100CANON/IMG_0001.JPG")
        XCTAssertEqual(try FTPVirtualPath.resolve("../101CANON/./x.jpg", from: folder).description, "/DCIM/101CANON/x.jpg")
        XCTAssertEqual(try FTPVirtualPath.resolve("/", from: folder), .root)
        XCTAssertEqual(try FTPVirtualPath.resolve("//a//b/", from: .root).description, "/a/b")
        XCTAssertThrowsError(try FTPVirtualPath.resolve("../../x.jpg", from: .root)) {
            XCTAssertEqual($0 as? FTPVirtualPath.Refusal, .escapesRoot)
        }
        XCTAssertThrowsError(try FTPVirtualPath.resolve("../../../x.jpg", from: folder))
        XCTAssertThrowsError(try FTPVirtualPath.resolve("/..", from: folder))
        for host in ["~root/x.jpg", "C:\\x.jpg", "c:/x.jpg", "a\\..\\..\\x.jpg"] {
            XCTAssertThrowsError(try FTPVirtualPath.resolve(host, from: .root), host) {
                XCTAssertEqual($0 as? FTPVirtualPath.Refusal, .hostPath)
            }
        }
        XCTAssertThrowsError(try FTPVirtualPath.resolve("a\u{1}b.jpg", from: .root))
        XCTAssertThrowsError(try FTPVirtualPath.resolve(String(repeating: "a/", count: 40), from: .root))
        XCTAssertEqual(folder.parent.description, "/DCIM")
        XCTAssertEqual(FTPVirtualPath.root.parent, .root)
    }

    func testOnlyPhotoAndVideoNamesAreTaken() {
        XCTAssertEqual(FTPFileKind(fileName: "IMG_0001.JPG"), .jpeg)
        XCTAssertEqual(FTPFileKind(fileName: "dsc.jpeg"), .jpeg)
        XCTAssertEqual(FTPFileKind(fileName: "IMG_0001.CR3"), .raw)
        XCTAssertEqual(FTPFileKind(fileName: "DSC_0001.NEF"), .raw)
        XCTAssertEqual(FTPFileKind(fileName: "DSC00001.ARW"), .raw)
        XCTAssertEqual(FTPFileKind(fileName: "C0001.MP4"), .video)
        XCTAssertEqual(FTPFileKind(fileName: "MVI_0001.MOV"), .video)
        for other in ["x.sh", "authorized_keys", "a.exe", "JPG", "part", ".", ".."] {
            XCTAssertEqual(FTPFileKind(fileName: other), .other, other)
        }
    }

    /// The temporary names FTP clients write before their rename: relay's own destination
    /// (`.NAME.part`), lftp's `xfer:temp-file-name` (`.in.NAME`), WinSCP (`NAME.filepart`), scripts.
    func testTemporaryUploadNamesAreHeldForTheirRename() {
        for name in [".IMG_0001.JPG.part", ".in.IMG_0001.JPG", "IMG_0001.JPG.filepart", "IMG.JPG.part", "x.TMP", ".jpg"] {
            XCTAssertEqual(FTPFileKind(fileName: name), .temporary, name)
        }
    }

    func testAJPEGIsCompleteOnlyWithItsEndMarker() {
        XCTAssertTrue(JPEGEnd.isComplete(tail: [0x12, 0xFF, 0xD9]))
        XCTAssertTrue(JPEGEnd.isComplete(tail: [0x12, 0xFF, 0xD9, 0x00, 0x00, 0xFF]), "padding after EOI")
        XCTAssertFalse(JPEGEnd.isComplete(tail: [0xFF, 0xD9, 0x12]))
        XCTAssertFalse(JPEGEnd.isComplete(tail: [0x12, 0x34]))
        XCTAssertFalse(JPEGEnd.isComplete(tail: [0xD9]))
        XCTAssertFalse(JPEGEnd.isComplete(tail: [UInt8]()))
        XCTAssertFalse(JPEGEnd.isComplete(tail: [0x00, 0x00]))
    }

    func testListingAndModificationTimes() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13:20 UTC
        XCTAssertEqual(FTPListing.modificationTime(date), "20231114221320")
        let entries = [
            FTPListing.Entry(name: "100CANON", isFolder: true, bytes: 0, modified: date),
            FTPListing.Entry(name: "IMG_0001.JPG", isFolder: false, bytes: 1234, modified: date),
        ]
        XCTAssertEqual(
            FTPListing.long(entries),
            "drwx------ 1 ftp ftp 0 Nov 14 22:13 100CANON\r\n-rw------- 1 ftp ftp 1234 Nov 14 22:13 IMG_0001.JPG\r\n")
        XCTAssertEqual(FTPListing.names(entries), "100CANON\r\nIMG_0001.JPG\r\n")
    }
}
