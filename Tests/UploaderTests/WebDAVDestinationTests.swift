import Foundation
import RelayCore
import TestSupport
import Uploader
import XCTest

/// The WebDAV destination against Apache httpd with mod_dav, started here on loopback.
final class WebDAVDestinationTests: GalleryTestCase {
    private var server: ApacheDAVProcess?

    override func tearDown() {
        server?.stop()
        server = nil
        super.tearDown()
    }

    private func item(_ path: String, name: String) -> DeliveryItem {
        DeliveryItem(
            filePath: path, name: name, key: "key-\(name)", contentType: ContentType.of(fileName: name),
            template: PathTemplate.Values(
                name: name, capturedAt: Date(timeIntervalSince1970: 1_779_540_245),
                camera: "0123", serial: "0123", sequence: 42, run: "gala"))
    }

    private func start() throws -> ApacheDAVProcess {
        let started = try ApacheDAVProcess()
        server = started
        return started
    }

    private func destination(_ url: String, password: String? = "${DAV_PASSWORD}", secret: String) throws -> WebDAVDestination {
        let config = RequestConfig(url: url, options: password.map { ["password": .string($0)] } ?? [:])
        try Destinations.validate(config)
        return try WebDAVDestination(
            config: config, environment: ["DAV_PASSWORD": secret], policy: DeliveryPolicy(),
            cancellation: UploadCancellation())
    }

    /// Issue 26: a folder that does not exist is made (with its parents); the photo shows only
    /// under its final name, whole; a second attempt leaves one file; the next photo in the same
    /// folder goes straight in.
    func testMissingFoldersAreMadeAndThePhotoIsMovedIntoPlaceWhole() throws {
        let dav = try start()
        let first = try makePhoto("IMG_0042.JPG", size: 300_000, seed: 1)
        let second = try makePhoto("IMG 0043 ü.JPG", size: 100_000, seed: 2)
        let destination = try destination(
            "dav://\(dav.user)@127.0.0.1:\(dav.port)/studio/wedding/{run}/{date}/{name}", secret: dav.password)
        for attempt in 0..<2 {
            let report = destination.deliver(item(first.path, name: "IMG_0042.JPG"), growing: nil, attempt: attempt)
            XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        }
        let report = destination.deliver(item(second.path, name: "IMG 0043 ü.JPG"), growing: nil, attempt: 0)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        let day = PathTemplate.day(Date(timeIntervalSince1970: 1_779_540_245))
        let folder = "studio/wedding/gala/\(day)"
        // Path templates make names safe: "IMG 0043 ü.JPG" is stored as IMG_0043__.JPG.
        XCTAssertEqual(dav.files(), ["\(folder)/IMG_0042.JPG", "\(folder)/IMG_0043__.JPG"], "no .part left, one file per photo")
        XCTAssertEqual(SHA256.hex(try Data(contentsOf: dav.root.appendingPathComponent("\(folder)/IMG_0042.JPG"))), SHA256.hex(first.data))
        XCTAssertEqual(
            SHA256.hex(try Data(contentsOf: dav.root.appendingPathComponent("\(folder)/IMG_0043__.JPG"))), SHA256.hex(second.data))
        XCTAssertEqual(report.answer, "stored as dav://photo@127.0.0.1:\(dav.port)/\(folder)/IMG_0043__.JPG")
    }

    /// A wrong password is the photographer's to fix: permanent, with Apache's page summarised.
    func testAWrongPasswordIsPermanentAndItsPageIsSummarised() throws {
        let dav = try start()
        let photo = try makePhoto("IMG_0001.JPG", size: 10_000, seed: 3)
        let report = try destination("dav://\(dav.user)@127.0.0.1:\(dav.port)/in", secret: "wrong")
            .deliver(item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let reason) = report.decision else { return XCTFail("\(report.decision)") }
        XCTAssertEqual(report.statusCode, 401)
        XCTAssertTrue(reason.contains("401 Unauthorized"), reason)
        XCTAssertFalse(reason.contains("<"), "no markup: \(reason)")
        XCTAssertEqual(dav.files(), [])
    }

    /// A server that is not there is retried, like any gallery.
    func testAServerThatIsDownIsRetried() throws {
        let port = try XCTUnwrap(ClosedPort.make())
        let photo = try makePhoto("IMG_0001.JPG", size: 10_000, seed: 4)
        let report = try destination("dav://photo@127.0.0.1:\(port)/in", secret: "x")
            .deliver(item(photo.path, name: "IMG_0001.JPG"), growing: nil, attempt: 0)
        guard case .retry = report.decision else { return XCTFail("\(report.decision)") }
    }

    /// A re-send after a lost answer asks first: PROPFIND finds the photo under its final name
    /// at its full size, and nothing is sent again: the file is still the one the first MOVE
    /// put there (its inode; a second PUT and MOVE would have put another).
    func testAReSendFindsThePhotoByPropfindAndSendsNothing() throws {
        let dav = try start()
        let photo = try makePhoto("IMG_0050.JPG", size: 300_000, seed: 5)
        let destination = try destination("dav://\(dav.user)@127.0.0.1:\(dav.port)/studio/{run}/{name}", secret: dav.password)
        XCTAssertEqual(destination.deliver(item(photo.path, name: "IMG_0050.JPG"), growing: nil, attempt: 0).decision, .delivered)
        let stored = dav.root.appendingPathComponent("studio/gala/IMG_0050.JPG")
        let first = try inode(stored)

        let report = destination.deliverAskingFirst(item(photo.path, name: "IMG_0050.JPG"), growing: nil, attempt: 1, progress: nil)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(report.answer, "already there: found by PROPFIND, 300000 bytes")
        XCTAssertEqual(try inode(stored), first, "not sent again")
        XCTAssertEqual(dav.files(), ["studio/gala/IMG_0050.JPG"])
    }

    /// A file cut short under the photo's name (not the photo) is replaced by the re-send,
    /// whole; a name with nothing under it (not even its folder) is absent.
    func testAReSendReplacesACutFile() throws {
        let dav = try start()
        let photo = try makePhoto("IMG_0051.JPG", size: 200_000, seed: 6)
        let folder = dav.root.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o777)
        try photo.data.prefix(150_000).write(to: folder.appendingPathComponent("IMG_0051.JPG"))
        let destination = try destination("dav://\(dav.user)@127.0.0.1:\(dav.port)/in", secret: dav.password)
        XCTAssertEqual(destination.probe(item(photo.path, name: "IMG_0051.JPG"), attempt: 1), .absent)
        XCTAssertEqual(destination.probe(item(photo.path, name: "IMG_0052.JPG"), attempt: 1), .absent, "404")
        let nowhere = try self.destination("dav://\(dav.user)@127.0.0.1:\(dav.port)/none/{run}/{name}", secret: dav.password)
        XCTAssertEqual(nowhere.probe(item(photo.path, name: "IMG_0051.JPG"), attempt: 1), .absent, "no folder: 404")

        let report = destination.deliverAskingFirst(item(photo.path, name: "IMG_0051.JPG"), growing: nil, attempt: 1, progress: nil)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(report.answer, "stored as dav://photo@127.0.0.1:\(dav.port)/in/IMG_0051.JPG")
        XCTAssertEqual(dav.files(), ["in/IMG_0051.JPG"])
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("IMG_0051.JPG")), photo.data)
    }

    /// A server that stopped cannot say: the question is unanswered and retried, nothing sent.
    func testAStoppedServerLeavesTheQuestionUnanswered() throws {
        let dav = try start()
        let photo = try makePhoto("IMG_0053.JPG", size: 10_000, seed: 7)
        let destination = try destination("dav://\(dav.user)@127.0.0.1:\(dav.port)/in", secret: dav.password)
        dav.stop()
        let answer = destination.probe(item(photo.path, name: "IMG_0053.JPG"), attempt: 1)
        guard case .unanswered(let report) = answer, case .retry = report.decision else { return XCTFail("\(answer)") }
        XCTAssertTrue(report.problem?.hasPrefix("could not ask whether an earlier attempt landed") == true, report.problem ?? "")
    }

    func testLocationsAndConfigRules() throws {
        let plain = try WebDAVLocation(config: RequestConfig(url: "davs://nas.local/remote.php/dav/files/anna/Weddings/"))
        let target = plain.target(for: PathTemplate.sample)
        XCTAssertEqual(target.finalPath, "remote.php/dav/files/anna/Weddings/IMG_0001.JPG")
        XCTAssertEqual(plain.url(target.partPath), "https://nas.local/remote.php/dav/files/anna/Weddings/.IMG_0001.JPG.part")
        XCTAssertEqual(try WebDAVLocation(config: RequestConfig(url: "dav://[::1]:8080")).url("a b/c.jpg"), "http://[::1]:8080/a%20b/c.jpg")
        XCTAssertTrue(try Destinations.kind(of: RequestConfig(url: "DAVS://x/y")) == WebDAVDestination.self)
        XCTAssertThrowsError(
            try Destinations.validate(RequestConfig(url: "dav://nas/in", options: ["password": "secret"])), "a password only as ${NAME}")
        XCTAssertThrowsError(
            try Destinations.validate(RequestConfig(url: "dav://nas/in", options: ["password": "${P}"])), "a password needs a user")
        XCTAssertThrowsError(
            try Destinations.validate(RequestConfig(url: "dav://nas/in", options: ["fields": ["a": "b"]])), "no form fields")
        XCTAssertNoThrow(try Destinations.validate(RequestConfig(url: "davs://nas/in", headers: ["Authorization": "Bearer ${TOKEN}"])))
    }
}

/// The inode of a file: a file replaced by a rename (a MOVE, RNTO) has another.
func inode(_ url: URL) throws -> UInt64 {
    try XCTUnwrap((FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.uint64Value)
}
