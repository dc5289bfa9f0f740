import Foundation
import RelayCore
import XCTest

final class SessionManifestTests: XCTestCase {
    private let early = Date(timeIntervalSince1970: 1_700_000_000)

    private func record() -> SessionRecord {
        var record = SessionRecord(session: "party")
        record.record(
            key: "k2", name: "IMG_2.JPG", capturedAt: early.addingTimeInterval(5), destinationID: "s3",
            .init(location: "s3://b/party/IMG_2.JPG", size: 20, sha256: "bb"))
        record.record(
            key: "k1", name: "IMG_1.JPG", capturedAt: early, destinationID: "s3",
            .init(location: "s3://b/party/IMG_1.JPG", size: 10, sha256: "aa"))
        record.record(
            key: "k1", name: "IMG_1.JPG", capturedAt: early, destinationID: "ftp",
            .init(location: "/in/IMG_1.JPG", size: 10, sha256: "aa"))
        return record
    }

    func testTheManifestListsWhatThatDestinationReceivedInCaptureOrder() throws {
        let manifest = try XCTUnwrap(SessionManifest.build(record(), destinationID: "s3", label: "bucket"))
        XCTAssertEqual(manifest.session, "party")
        XCTAssertEqual(manifest.photos.map(\.name), ["IMG_1.JPG", "IMG_2.JPG"])
        XCTAssertEqual(manifest.photos.map(\.deliveredAs), ["s3://b/party/IMG_1.JPG", "s3://b/party/IMG_2.JPG"])
        XCTAssertEqual(manifest.photos.map(\.sha256), ["aa", "bb"])
        let json = String(decoding: try manifest.encoded(), as: UTF8.self)
        XCTAssertTrue(json.contains("\"capturedAt\" : \"2023-11-14T"), json)
    }

    func testNoManifestWhileAPhotoHasNotReachedTheDestination() {
        XCTAssertNil(SessionManifest.build(record(), destinationID: "ftp", label: "desk"))
    }

    func testTheSetIsAnnouncedOnceAndAgainOnlyWhenItGrows() {
        var record = record()
        XCTAssertTrue(record.needsAnnouncement(to: "s3"))
        record.markAnnounced(to: "s3")
        XCTAssertFalse(record.needsAnnouncement(to: "s3"))
        XCTAssertTrue(record.needsAnnouncement(to: "ftp"))
        record.record(
            key: "k3", name: "IMG_3.JPG", capturedAt: early, destinationID: "s3",
            .init(location: "x", size: 1, sha256: "cc"))
        XCTAssertTrue(record.needsAnnouncement(to: "s3"))
        XCTAssertFalse(SessionRecord(session: "empty").needsAnnouncement(to: "s3"), "an empty session has nothing to announce")
    }

    func testSessionNamesAreOneSafeFolder() {
        XCTAssertTrue(SessionRecord.isValidName("gala-2026_11.a"))
        for bad in ["", "..", "a/b", "a b", "é"] { XCTAssertFalse(SessionRecord.isValidName(bad), bad) }
    }

    func testTheFixedFolderIsTheTextBeforeTheFirstPlaceholder() throws {
        XCTAssertEqual(try PathTemplate("gala/{date}/{name}").fixedFolder, "gala")
        XCTAssertEqual(try PathTemplate("gala/x-{name}").fixedFolder, "gala")
        XCTAssertEqual(try PathTemplate("{run}/{name}").fixedFolder, "")
        XCTAssertEqual(try PathTemplate("/in/{name}").fixedFolder, "/in")
    }
}
