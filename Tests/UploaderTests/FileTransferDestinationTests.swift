import Foundation
import RelayCore
import TestSupport
import Uploader
import XCTest

/// FTP, FTPS and SFTP destinations against vsftpd and OpenSSH's sshd started here on loopback.
final class FileTransferDestinationTests: GalleryTestCase {
    private var servers: [() -> Void] = []

    override func tearDown() {
        for stop in servers { stop() }
        servers = []
        super.tearDown()
    }

    private func item(_ path: String, name: String) -> DeliveryItem {
        DeliveryItem(
            filePath: path, name: name, key: "key-\(name)", contentType: ContentType.of(fileName: name),
            template: PathTemplate.Values(
                name: name, capturedAt: Date(timeIntervalSince1970: 1_779_540_245),
                camera: "0123", serial: "0123", sequence: 42, run: "gala"))
    }

    private func destination(_ config: RequestConfig, _ environment: [String: String] = [:]) throws -> FileTransferDestination {
        try FileTransferDestination(config: config, environment: environment, policy: DeliveryPolicy(), cancellation: UploadCancellation())
    }

    private func ftp(tls: Bool = false) throws -> VsftpdProcess {
        let server = try VsftpdProcess(tls: tls)
        servers.append(server.stop)
        return server
    }

    private func sshd() throws -> SSHDProcess {
        let server = try SSHDProcess()
        servers.append(server.stop)
        return server
    }

    /// Folders are made, the file lands under its final name only (no part left), and a second
    /// attempt for the same photo replaces it instead of adding another.
    func testFTPUploadsUnderATemporaryNameThenRenames() throws {
        let server = try ftp()
        let photo = try makePhoto("IMG_0042.JPG", size: 200_000, seed: 1)
        let config = RequestConfig(
            url: "ftp://127.0.0.1:\(server.port)/upload/{run}/{date}/{name}", options: ["password": "${FTP_PASSWORD}"])
        let ftp = try destination(config, ["FTP_PASSWORD": "guest"])
        for attempt in 0..<2 {
            let report = ftp.deliver(item(photo.path, name: "IMG_0042.JPG"), growing: nil, attempt: attempt)
            XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        }
        let day = PathTemplate.day(Date(timeIntervalSince1970: 1_779_540_245))
        XCTAssertEqual(server.files(), ["upload/gala/\(day)/IMG_0042.JPG"])
        XCTAssertEqual(SHA256.hex(try Data(contentsOf: server.root.appendingPathComponent(server.files()[0]))), SHA256.hex(photo.data))
    }

    /// A session's set goes to `PREFIX/SESSION/`: the manifest, then the marker, both renamed into place.
    func testFTPSessionSetGoesUnderTheFixedFolderManifestThenMarker() throws {
        let server = try ftp()
        let manifest = (path: scratch.appendingPathComponent("set.json").path, data: Data(#"{"session":"gala","photos":[]}"#.utf8))
        try manifest.data.write(to: URL(fileURLWithPath: manifest.path))
        let marker = scratch.appendingPathComponent("set.done")
        try Data().write(to: marker)
        let ftp = try destination(RequestConfig(url: "ftp://127.0.0.1:\(server.port)/upload/{run}/{date}/{name}"))
        let report = ftp.deliverSet(manifest: manifest.path, marker: marker.path, session: "gala")
        XCTAssertEqual(report?.decision, .delivered, report?.problem ?? "")
        XCTAssertEqual(server.files().sorted(), ["upload/gala/_DONE", "upload/gala/manifest.json"])
        XCTAssertEqual(try Data(contentsOf: server.root.appendingPathComponent("upload/gala/manifest.json")), manifest.data)
    }

    /// Explicit TLS, the server's own certificate trusted through the config.
    func testFTPSWithTheServersCertificate() throws {
        let server = try ftp(tls: true)
        let photo = try makePhoto("IMG_0043.JPG", size: 50_000, seed: 2)
        let certificate = try XCTUnwrap(server.certificate).path
        let report = try destination(
            RequestConfig(url: "ftps://127.0.0.1:\(server.port)/upload", options: ["caCertificate": .string(certificate)])
        )
        .deliver(item(photo.path, name: "IMG_0043.JPG"), growing: nil, attempt: 0)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(server.files(), ["upload/IMG_0043.JPG"])

        let untrusted = try destination(RequestConfig(url: "ftps://127.0.0.1:\(server.port)/upload"))
            .deliver(item(photo.path, name: "IMG_0044.JPG"), growing: nil, attempt: 0)
        XCTAssertNotEqual(untrusted.decision, .delivered, "a certificate nobody vouches for is not accepted")
        XCTAssertEqual(server.files(), ["upload/IMG_0043.JPG"])
    }

    /// The server dies mid-upload: no partial file appears under the photo's name, the attempt
    /// is retried, and after the server is back the photo arrives once, whole.
    func testFTPServerRestartedMidUpload() throws {
        let server = try ftp()
        let photo = try makePhoto("IMG_0045.JPG", size: 2_000_000, seed: 3)
        var config = RequestConfig(url: "ftp://127.0.0.1:\(server.port)/upload")
        config.maxBytesPerSecond = 200_000
        let ftp = try destination(config)
        let part = server.root.appendingPathComponent("upload/.IMG_0045.JPG.part")
        let finished = DispatchSemaphore(value: 0)
        let photoItem = item(photo.path, name: "IMG_0045.JPG")
        nonisolated(unsafe) let uploader = ftp
        nonisolated(unsafe) var first: DeliveryReport?
        Thread.detachNewThread {
            first = uploader.deliver(photoItem, growing: nil, attempt: 0)
            finished.signal()
        }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                ((try? FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int) ?? 0) > 100_000
            }, "the upload started")
        server.kill()
        XCTAssertEqual(finished.wait(timeout: .now() + 120), .success, "the upload notices the server is gone")
        guard case .retry = first?.decision else { return XCTFail("a server gone mid-upload is retried: \(String(describing: first))") }
        XCTAssertFalse(server.files().contains("upload/IMG_0045.JPG"), "no partial file under the photo's name")

        try server.restart()
        config.maxBytesPerSecond = nil
        let second = try destination(config).deliver(item(photo.path, name: "IMG_0045.JPG"), growing: nil, attempt: 1)
        XCTAssertEqual(second.decision, .delivered, second.problem ?? "")
        XCTAssertEqual(server.files(), ["upload/IMG_0045.JPG"])
        XCTAssertEqual(SHA256.hex(try Data(contentsOf: server.root.appendingPathComponent("upload/IMG_0045.JPG"))), SHA256.hex(photo.data))
    }

    func testSFTPWithAKeyAndAKnownHost() throws {
        let server = try sshd()
        let photo = try makePhoto("IMG_0046.JPG", size: 100_000, seed: 4)
        let config = RequestConfig(
            url: "sftp://\(SSHDProcess.user)@127.0.0.1:\(server.port)\(server.uploads.path)/{seq}-{name}",
            options: ["sshKey": .string(server.userKey.path), "knownHosts": .string(server.knownHosts.path)])
        let sftp = try destination(config)
        for attempt in 0..<2 {
            let report = sftp.deliver(item(photo.path, name: "IMG_0046.JPG"), growing: nil, attempt: attempt)
            XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: server.uploads.path), ["0042-IMG_0046.JPG"])
        XCTAssertEqual(SHA256.hex(try Data(contentsOf: server.uploads.appendingPathComponent("0042-IMG_0046.JPG"))), SHA256.hex(photo.data))
    }

    /// A re-send after a lost answer asks first, over FTP and SFTP: the final name holds the
    /// photo at its full size (the rename happened), so nothing is sent again: the file is still
    /// the one the first rename put there (its inode; another upload and rename would have put
    /// another).
    func testAReSendFindsThePhotoByItsSizeAndSendsNothing() throws {
        let photo = try makePhoto("IMG_0050.JPG", size: 250_000, seed: 6)
        let ftpServer = try ftp()
        let sshServer = try sshd()
        let places: [(RequestConfig, URL, String)] = [
            (
                RequestConfig(url: "ftp://127.0.0.1:\(ftpServer.port)/upload/{run}/{name}"),
                ftpServer.root.appendingPathComponent("upload/gala/IMG_0050.JPG"), "FTP SIZE"
            ),
            (
                RequestConfig(
                    url: "sftp://\(SSHDProcess.user)@127.0.0.1:\(sshServer.port)\(sshServer.uploads.path)/{run}/{name}",
                    options: ["sshKey": .string(sshServer.userKey.path), "knownHosts": .string(sshServer.knownHosts.path)]),
                sshServer.uploads.appendingPathComponent("gala/IMG_0050.JPG"), "SFTP stat"
            ),
        ]
        for (config, stored, how) in places {
            let destination = try destination(config)
            XCTAssertEqual(destination.probe(item(photo.path, name: "IMG_0050.JPG"), attempt: 1), .absent, "\(how): nothing yet")
            XCTAssertEqual(destination.deliver(item(photo.path, name: "IMG_0050.JPG"), growing: nil, attempt: 0).decision, .delivered)
            let first = try inode(stored)
            let report = destination.deliverAskingFirst(item(photo.path, name: "IMG_0050.JPG"), growing: nil, attempt: 1, progress: nil)
            XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
            XCTAssertEqual(report.answer, "already there: found by \(how), 250000 bytes")
            XCTAssertEqual(try inode(stored), first, "\(how): not sent again")
        }
    }

    /// A file cut short under the photo's name is replaced by the re-send, whole.
    func testAReSendReplacesACutFile() throws {
        let photo = try makePhoto("IMG_0051.JPG", size: 200_000, seed: 7)
        let ftpServer = try ftp()
        let sshServer = try sshd()
        let places: [(RequestConfig, URL)] = [
            (RequestConfig(url: "ftp://127.0.0.1:\(ftpServer.port)/upload"), ftpServer.root.appendingPathComponent("upload/IMG_0051.JPG")),
            (
                RequestConfig(
                    url: "sftp://\(SSHDProcess.user)@127.0.0.1:\(sshServer.port)\(sshServer.uploads.path)",
                    options: ["sshKey": .string(sshServer.userKey.path), "knownHosts": .string(sshServer.knownHosts.path)]),
                sshServer.uploads.appendingPathComponent("IMG_0051.JPG")
            ),
        ]
        for (config, stored) in places {
            try photo.data.prefix(120_000).write(to: stored)
            let destination = try destination(config)
            XCTAssertEqual(destination.probe(item(photo.path, name: "IMG_0051.JPG"), attempt: 1), .absent, config.url)
            let report = destination.deliverAskingFirst(item(photo.path, name: "IMG_0051.JPG"), growing: nil, attempt: 1, progress: nil)
            XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
            XCTAssertEqual(report.bytesSent, 200_000, config.url)
            XCTAssertEqual(try Data(contentsOf: stored), photo.data, config.url)
        }
    }

    /// A server that stopped cannot say: the question is unanswered and retried, nothing sent.
    func testAStoppedServerLeavesTheQuestionUnanswered() throws {
        let server = try ftp()
        let photo = try makePhoto("IMG_0053.JPG", size: 10_000, seed: 8)
        let destination = try destination(RequestConfig(url: "ftp://127.0.0.1:\(server.port)/upload"))
        server.kill()
        let answer = destination.probe(item(photo.path, name: "IMG_0053.JPG"), attempt: 1)
        guard case .unanswered(let report) = answer, case .retry = report.decision else { return XCTFail("\(answer)") }
        XCTAssertTrue(report.problem?.hasPrefix("could not ask whether an earlier attempt landed") == true, report.problem ?? "")
    }

    /// An unknown host key and a changed one are refused, permanently, with the fingerprint;
    /// a key the server does not know is a refused login.
    func testSFTPHostKeysAreCheckedNeverAccepted() throws {
        let server = try sshd()
        let photo = try makePhoto("IMG_0047.JPG", size: 10_000, seed: 5)
        let fingerprint = server.hostFingerprint
        XCTAssertTrue(fingerprint.hasPrefix("SHA256:"), fingerprint)
        let url = "sftp://\(SSHDProcess.user)@127.0.0.1:\(server.port)\(server.uploads.path)"

        let empty = server.directory.appendingPathComponent("empty_known_hosts")
        try Data().write(to: empty)
        let unknown = try destination(
            RequestConfig(url: url, options: ["sshKey": .string(server.userKey.path), "knownHosts": .string(empty.path)])
        )
        .deliver(item(photo.path, name: "IMG_0047.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let reason) = unknown.decision else { return XCTFail("unknown host: \(unknown)") }
        XCTAssertTrue(reason.contains("is not in \(empty.path)") && reason.contains(fingerprint), reason)

        let other = server.directory.appendingPathComponent("other_known_hosts")
        try "[127.0.0.1]:\(server.port) ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"
            .write(to: other, atomically: true, encoding: .utf8)
        let changed = try destination(
            RequestConfig(url: url, options: ["sshKey": .string(server.userKey.path), "knownHosts": .string(other.path)])
        )
        .deliver(item(photo.path, name: "IMG_0047.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let why) = changed.decision else { return XCTFail("changed host key: \(changed)") }
        XCTAssertTrue(why.contains("NOT the key") && why.contains(fingerprint), why)

        // The host key is a key this server does not accept as a user's.
        let strangerKey = server.directory.appendingPathComponent("host_key")
        let refused = try destination(
            RequestConfig(url: url, options: ["sshKey": .string(strangerKey.path), "knownHosts": .string(server.knownHosts.path)])
        )
        .deliver(item(photo.path, name: "IMG_0047.JPG"), growing: nil, attempt: 0)
        guard case .permanent(let login) = refused.decision else { return XCTFail("unknown user key: \(refused)") }
        XCTAssertTrue(login.contains("refused the login"), login)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: server.uploads.path), [])
    }
}

/// The FTP paths and commands (pure).
final class FileTransferLocationTests: XCTestCase {
    private let values = PathTemplate.Values(
        name: "IMG 1.JPG", capturedAt: Date(timeIntervalSince1970: 0), camera: "c",
        serial: "s", sequence: 7, run: "r")

    func testPathsAndCommands() throws {
        var location = try FileTransferLocation(config: RequestConfig(url: "ftps://desk@news.example/in/{run}"))
        XCTAssertEqual(location.port, 21)
        var target = location.target(for: values)
        XCTAssertEqual(target.finalPath, "in/r")
        location = try FileTransferLocation(config: RequestConfig(url: "ftps://desk@news.example/in/"))
        target = location.target(for: values)
        XCTAssertEqual(target.finalPath, "in/IMG_1.JPG")
        XCTAssertEqual(location.uploadURL(target), "ftp://news.example:21/in/.IMG_1.JPG.part", "explicit TLS travels as ftp://")
        XCTAssertEqual(location.renameCommands(target), ["RNFR .IMG_1.JPG.part", "RNTO IMG_1.JPG"])
        XCTAssertEqual(location.displayName(target), "ftps://desk@news.example:21/in/IMG_1.JPG")

        location = try FileTransferLocation(config: RequestConfig(url: "sftp://me@h:2222/srv/photos"))
        target = location.target(for: values)
        XCTAssertEqual(location.uploadURL(target), "sftp://h:2222/srv/photos/.IMG_1.JPG.part")
        XCTAssertEqual(
            location.renameCommands(target),
            [#"*rm "/srv/photos/IMG_1.JPG""#, #"rename "/srv/photos/.IMG_1.JPG.part" "/srv/photos/IMG_1.JPG""#])
    }

    func testSecretsStayOutOfTheConfig() {
        func message(_ config: RequestConfig) -> String {
            do {
                try Destinations.validate(config)
                return ""
            } catch { return error.description }
        }
        XCTAssertTrue(message(RequestConfig(url: "ftp://u:secret@h/x")).contains("password in the URL"))
        XCTAssertTrue(message(RequestConfig(url: "ftp://u@h/x", options: ["password": "secret"])).contains("${NAME}"))
        XCTAssertTrue(message(RequestConfig(url: "sftp://h/x")).contains("names the user"))
        XCTAssertTrue(message(RequestConfig(url: "ftp://h/x", options: ["sshKey": "/k"])).contains("for sftp://"))
        XCTAssertEqual(message(RequestConfig(url: "sftp://u@h/x/{date}", options: ["sshKey": "/k", "knownHosts": "/kh"])), "")
        XCTAssertEqual(message(RequestConfig(url: "ftp://u@h/x", options: ["password": "${FTP_PASSWORD}"])), "")
    }
}
