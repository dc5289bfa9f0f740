import Foundation
import TestSupport
import XCTest

/// The receiver's faults: cut-off uploads, repeats, two photographers at once, relay killed
/// mid-upload, hostile clients, limits, a full spool. Each ends with what the gallery holds.
final class FTPFaultTests: XCTestCase {
    /// A camera switched off mid-upload: nothing reaches the gallery; its resume (curl's SIZE +
    /// APPE, then ftplib's REST + STOR) completes the photo, delivered once and whole.
    func testAnUploadCutOffIsKeptAndItsResumeIsDeliveredOnceWhole() throws {
        let ftp = try FTPRun()
        let first = try ftp.photo("IMG_0001.JPG", bytes: 1_000_000, seed: 11)
        let second = try ftp.photo("IMG_0002.JPG", bytes: 800_000, seed: 12)
        XCTAssertEqual(try ftp.camera(["--die-after", "300000", ftp.path("IMG_0001.JPG")]).status, 3, "the camera died mid-upload")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                ftp.relay.stderr.contains("IMG_0001.JPG") && ftp.relay.stderr.contains("kept for a resume")
            },
            ftp.relay.stderr)
        XCTAssertEqual(try ftp.gallery.photos().count, 0, "half a photo is never spooled, so never uploaded")
        XCTAssertEqual(try ftp.commands(["SIZE IMG_0001.JPG"]), ["213 300000"], "the part received is kept for the resume")
        let partials = ftp.harness.home.appendingPathComponent("ftp/partial/alice")
        let kept = try FileManager.default.contentsOfDirectory(atPath: partials.path)
        XCTAssertEqual(Set(kept.map { ($0 as NSString).pathExtension }), ["part", "path"], "\(kept)")
        for name in kept {
            let mode =
                try FileManager.default.attributesOfItem(atPath: partials.appendingPathComponent(name).path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o600, "\(name) is relay's user's alone, as the README says")
        }

        let curl = try ftp.client(
            "curl",
            [
                "-sS", "-u", "alice:alice-secret", "-C", "-", "-T", ftp.path("IMG_0001.JPG"),
                "ftp://127.0.0.1:\(ftp.port)/",
            ])
        XCTAssertEqual(curl.status, 0, curl.stderr)
        XCTAssertEqual(try ftp.camera(["--die-after", "500000", ftp.path("IMG_0002.JPG")]).status, 3)
        let resumed = try ftp.camera(["--resume", ftp.path("IMG_0002.JPG")])
        XCTAssertTrue(resumed.stdout.hasPrefix("IMG_0002.JPG 226"), resumed.stdout + resumed.stderr)

        try ftp.waitForPhotos(2)
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.count, 2, "\(photos.map(\.name)) \(ftp.relay.stderr)")
        XCTAssertEqual(photos.first { $0.name == "IMG_0001.JPG" }?.sha256, SHA256.hex(first), "\(photos.map(\.name))")
        XCTAssertEqual(photos.first { $0.name == "IMG_0002.JPG" }?.sha256, SHA256.hex(second))
    }

    /// Issue 27: a camera whose numbering started again (or a second card) sends another photo
    /// under a name it sent before. The gallery keeps both: the second goes under a name of its
    /// own, made from its content, and its repeat is still recognised as the same photo.
    func testTwoPhotosUnderOneNameAreKeptAsTwo() throws {
        let ftp = try FTPRun()
        let first = try ftp.photo("DSC_0001.JPG", bytes: 120_000, seed: 91)
        XCTAssertTrue(try ftp.camera([ftp.path("DSC_0001.JPG")]).stdout.hasPrefix("DSC_0001.JPG 226"))
        try ftp.waitForPhotos(1)
        let second = try ftp.photo("DSC_0001.JPG", bytes: 130_000, seed: 92)
        XCTAssertTrue(try ftp.camera([ftp.path("DSC_0001.JPG")]).stdout.hasPrefix("DSC_0001.JPG 226"))
        try ftp.waitForPhotos(2)
        let again = try ftp.camera([ftp.path("DSC_0001.JPG")])
        XCTAssertTrue(again.stdout.hasPrefix("DSC_0001.JPG 226"), again.stdout)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("was taken before (matched ") }, ftp.relay.stderr)
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.count, 2, "\(photos.map(\.name))")
        XCTAssertEqual(photos.first { $0.name == "DSC_0001.JPG" }?.sha256, SHA256.hex(first), "the first keeps its name and bytes")
        // Sent under relay's name for it (not renamed by this gallery, which keeps clashing
        // names apart itself; an S3 key or an FTP name would have been replaced).
        let renamed = try XCTUnwrap(photos.first { $0.name != "DSC_0001.JPG" })
        XCTAssertEqual(renamed.name, "DSC_0001-\(SHA256.hex(second).prefix(8)).JPG")
        XCTAssertEqual(renamed.sha256, SHA256.hex(second))
        // The repeat's upload, started as it arrived, was withdrawn with its body incomplete.
        let answered = try ftp.gallery.uploadRequests().filter { $0.statusCode.map { (200..<300).contains($0) } ?? false }
        XCTAssertEqual(answered.count, 2, "the repeat was not delivered")
    }

    /// Issue 27: a JPEG with data after its image's end (20 kB of random bytes, a Samsung-style
    /// SEFH…SEFT block, 4 kB of zeros) was answered 451 for ever; it is whole, delivered as sent.
    func testJPEGsWithDataAfterTheirImageArriveAsSent() throws {
        let ftp = try FTPRun()
        var generator = SystemRandomNumberGenerator()
        let trailers: [(String, Data)] = [
            ("IMG_0001.JPG", Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })),
            ("IMG_0002.JPG", Data("SEFH".utf8) + Data([1, 0, 0, 0, 0xFF, 0xD8]) + Data(repeating: 0x41, count: 300) + Data("SEFT".utf8)),
            ("IMG_0003.JPG", Data(repeating: 0, count: 4096)),
        ]
        var sent: [String: Data] = [:]
        for (index, (name, trailer)) in trailers.enumerated() {
            let data = JPEGFixture.bytes(count: 150_000, seed: UInt64(40 + index)) + trailer
            try data.write(to: ftp.files.appendingPathComponent(name))
            sent[name] = data
            let result = try ftp.camera([ftp.path(name)])
            XCTAssertTrue(result.stdout.hasPrefix("\(name) 226"), result.stdout + result.stderr)
        }
        try ftp.waitForPhotos(3)
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.map(\.name).sorted(), sent.keys.sorted())
        for photo in photos { XCTAssertEqual(photo.sha256, sent[photo.name].map(SHA256.hex), "\(photo.name) as sent, trailer and all") }
    }

    /// A camera that lost the 226 sends the photo again: answered 226, not delivered twice; the
    /// same name with other content is another photo.
    func testThePhotoSentTwiceIsDeliveredOnce() throws {
        let ftp = try FTPRun()
        let photo = try ftp.photo("IMG_0001.JPG", bytes: 200_000, seed: 21)
        for _ in 0..<2 {
            let result = try ftp.camera(["--folder", "/DCIM", ftp.path("IMG_0001.JPG")])
            XCTAssertTrue(result.stdout.hasPrefix("IMG_0001.JPG 226"), result.stdout + result.stderr)
        }
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("IMG_0001.JPG was taken before (matched ") },
            ftp.relay.stderr)
        XCTAssertTrue(ftp.relay.stderr.contains("/DCIM/IMG_0001.JPG, 200000 bytes, SHA-256 "), "what matched:\n\(ftp.relay.stderr)")
        try ftp.waitForPhotos(1)
        let edited = try ftp.photo("IMG_0001.JPG", bytes: 200_000, seed: 22)
        XCTAssertTrue(try ftp.camera(["--folder", "/DCIM", ftp.path("IMG_0001.JPG")]).stdout.hasPrefix("IMG_0001.JPG 226"))
        try ftp.waitForPhotos(2)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256).sorted(), [SHA256.hex(photo), SHA256.hex(edited)].sorted())
    }

    /// Two photographers, each with their own login and folder, upload IMG_0001.JPG at the same
    /// time: the gallery gets both, named by user; one's password does not open the other's login.
    func testTwoUsersUploadingAtOnceKeepTheirPhotosApart() throws {
        let ftp = try FTPRun(users: [("alice", "alice-secret"), ("bob", "bob-secret")])
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/ftp_camera.py").path
        var uploads: [(Subprocess, Data)] = []
        for (user, password, seed) in [("alice", "alice-secret", UInt64(31)), ("bob", "bob-secret", UInt64(32))] {
            let folder = ftp.files.appendingPathComponent(user)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let data = try JPEGFixture.write(to: folder.appendingPathComponent("IMG_0001.JPG"), count: 1_500_000, seed: seed)
            let process = try Subprocess(
                try XCTUnwrap(Subprocess.which("python3")),
                [
                    script, "--port", "\(ftp.port)", "--user", user, "--password-env", "PW", "--rate", "3000000",
                    folder.appendingPathComponent("IMG_0001.JPG").path,
                ], environment: ["PW": password])
            uploads.append((process, data))
        }
        for (process, _) in uploads {
            XCTAssertEqual(process.wait(timeout: 60), 0, process.stderr)
            XCTAssertTrue(process.stdout.hasPrefix("IMG_0001.JPG 226"), process.stdout)
        }
        try ftp.waitForPhotos(2)
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.first { $0.name == "alice_IMG_0001.JPG" }?.sha256, SHA256.hex(uploads[0].1))
        XCTAssertEqual(photos.first { $0.name == "bob_IMG_0001.JPG" }?.sha256, SHA256.hex(uploads[1].1))
        let crossed = try ftp.camera([ftp.path("alice/IMG_0001.JPG")], user: "bob", password: "alice-secret")
        XCTAssertNotEqual(crossed.status, 0)
        XCTAssertTrue(crossed.stderr.contains("530"), crossed.stderr)
    }

    /// relay killed (SIGKILL) while a photo is arriving: the camera's retry, to the restarted
    /// relay, delivers it once; a third send after the delivery is still recognised.
    func testRelayKilledMidUploadTheCamerasRetryDeliversOnce() throws {
        let ftp = try FTPRun()
        let photo = try ftp.photo("IMG_0001.JPG", bytes: 2_000_000, seed: 41)
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/ftp_camera.py").path
        let camera = try Subprocess(
            try XCTUnwrap(Subprocess.which("python3")),
            [
                script, "--port", "\(ftp.port)", "--user", "alice", "--password-env", "PW", "--rate", "500000", ftp.path("IMG_0001.JPG"),
            ], environment: ["PW": "alice-secret"])
        let partial = ftp.harness.home.appendingPathComponent("ftp/partial/alice")
        let arriving = Subprocess.waitUntil(timeout: 30) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []
            return names.contains { name in
                name.hasSuffix(".part")
                    && ((try? FileManager.default.attributesOfItem(atPath: partial.appendingPathComponent(name).path))?[.size] as? Int ?? 0)
                        > 100_000
            }
        }
        XCTAssertTrue(arriving, "the upload did not start: \(ftp.relay.stderr)")
        _ = ftp.relay.stop(signal: SIGKILL)
        XCTAssertNotEqual(camera.wait(timeout: 60), 0, "the camera saw its upload fail")
        XCTAssertEqual(try ftp.gallery.photos().count, 0)

        try ftp.restart()
        for _ in 0..<2 {
            let retry = try ftp.camera([ftp.path("IMG_0001.JPG")])
            XCTAssertTrue(retry.stdout.hasPrefix("IMG_0001.JPG 226"), retry.stdout + retry.stderr)
            try ftp.waitForPhotos(1)
        }
        XCTAssertTrue(ftp.relay.stderr.contains("was taken before (matched "), ftp.relay.stderr)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256), [SHA256.hex(photo)])
    }

    /// Safe on a venue network: wrong passwords are slowed and logged, a data connection to
    /// another host and paths out of the user's folder are refused, so are names that are not
    /// photos and files over the size limit.
    func testHostileClientsAreRefused() throws {
        let ftp = try FTPRun(extra: ["--ftp-max-size", "100K"])
        let guesses = """
            import ftplib, sys
            for attempt in range(5):
                f = ftplib.FTP()
                f.connect("127.0.0.1", int(sys.argv[1]), timeout=30)
                try:
                    f.login("alice", "guess%d" % attempt)
                    print("in")
                except ftplib.error_perm as error:
                    print(str(error)[:3])
                f.close()
            """
        let result = try ftp.client("python3", ["-c", guesses, "\(ftp.port)"])
        XCTAssertEqual(result.stdout.split(separator: "\n"), ["530", "530", "530", "530", "530"], result.stderr)
        XCTAssertTrue(ftp.relay.stderr.contains("failed login as 'alice' from 127.0.0.1 (5 in a row)"), ftp.relay.stderr)

        let answers = try ftp.commands([
            "PORT 10,1,2,3,200,10", "EPRT |1|192.0.2.7|51000|", "STOR ../../x.jpg", "CWD ~root", "STOR /../etc/x.jpg",
            "PWD", "EPSV", "STOR run.sh", "RETR IMG_0001.JPG",
        ])
        XCTAssertEqual(answers.map { String($0.prefix(3)) }, ["500", "500", "553", "553", "553", "257", "229", "553", "550"], "\(answers)")
        XCTAssertTrue(ftp.relay.stderr.contains("asked for a data connection to 10.1.2.3 port 51210: refused"), ftp.relay.stderr)

        try ftp.photo("BIG.JPG", bytes: 200_000, seed: 51)
        let big = try ftp.client("curl", ["-sS", "-u", "alice:alice-secret", "-T", ftp.path("BIG.JPG"), "ftp://127.0.0.1:\(ftp.port)/"])
        XCTAssertNotEqual(big.status, 0)
        XCTAssertTrue(ftp.relay.stderr.contains("BIG.JPG refused: larger than"), ftp.relay.stderr)
        XCTAssertEqual(try ftp.commands(["SIZE BIG.JPG"]), ["550 no such file"], "nothing of it is kept")
        XCTAssertEqual(try ftp.gallery.photos().count, 0)
    }

    /// A full spool answers 452, so the camera sends the photo again later; once the gallery has
    /// made room, the retry is taken.
    func testAFullSpoolAsksTheCameraToRetry() throws {
        let gallery = try GalleryProcess(arguments: ["--fail-rate", "1", "--fail-status", "503"])
        let ftp = try FTPRun(extra: ["--spool-max-photos", "1"], gallery: gallery)
        try ftp.photo("IMG_0001.JPG", bytes: 100_000, seed: 61)
        let second = try ftp.photo("IMG_0002.JPG", bytes: 100_000, seed: 62)
        XCTAssertTrue(try ftp.camera([ftp.path("IMG_0001.JPG")]).stdout.hasPrefix("IMG_0001.JPG 226"))
        let refused = try ftp.camera([ftp.path("IMG_0002.JPG")])
        XCTAssertTrue(refused.stdout.hasPrefix("IMG_0002.JPG 452"), refused.stdout + refused.stderr)

        try gallery.setFaults(GalleryFaults(failRate: 0))
        try ftp.waitForPhotos(1)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { (try? ftp.harness.status())?.queued.isEmpty ?? false })
        let retried = try ftp.camera([ftp.path("IMG_0002.JPG")])
        XCTAssertTrue(retried.stdout.hasPrefix("IMG_0002.JPG 226"), retried.stdout + retried.stderr)
        try ftp.waitForPhotos(2)
        XCTAssertEqual(try ftp.gallery.photos().first { $0.name == "IMG_0002.JPG" }?.sha256, SHA256.hex(second))
    }
}

/// The receiver's limits on sessions, silence and how long a cut-off upload is kept.
final class FTPLimitTests: XCTestCase {
    func testSessionsOverTheLimitSilentClientsAndStalePartialsAreLetGo() throws {
        let ftp = try FTPRun(extra: ["--ftp-sessions", "1", "--ftp-idle", "2", "--ftp-keep-partial", "1"])
        let script = """
            import socket, sys
            port = int(sys.argv[1])
            first = socket.create_connection(("127.0.0.1", port), timeout=30)
            print(first.makefile().readline().strip())
            second = socket.create_connection(("127.0.0.1", port), timeout=30)
            print(second.makefile().readline().strip())
            print(first.makefile().readline().strip())
            """
        let result = try ftp.client("python3", ["-c", script, "\(ftp.port)"])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.map { String($0.prefix(3)) }, ["220", "421", "421"], result.stdout + result.stderr)
        XCTAssertTrue(lines.last?.contains("no command for 2 s") ?? false, "the silent session is closed: \(lines)")

        try ftp.photo("IMG_0001.JPG", bytes: 400_000, seed: 91)
        XCTAssertEqual(try ftp.camera(["--die-after", "100000", ftp.path("IMG_0001.JPG")]).status, 3)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("discarded the unfinished upload of /IMG_0001.JPG") },
            ftp.relay.stderr)
        XCTAssertEqual(try ftp.commands(["SIZE IMG_0001.JPG"]), ["550 no such file"])
    }

    /// Issue 27: cut uploads kept for a resume count against --spool-max-bytes. Four 3 MB uploads
    /// cut after 1.2 MB against a 2 MB spool leave at most the limit plus one upload on disk
    /// (the older ones dropped, each logged), and a new photo still gets in.
    func testCutUploadsStayWithinTheSpoolLimitAndANewPhotoGetsIn() throws {
        let ftp = try FTPRun(extra: ["--spool-max-bytes", "2000000"])
        for number in 1...4 {
            let name = "IMG_000\(number).JPG"
            try ftp.photo(name, bytes: 3_000_000, seed: UInt64(70 + number))
            XCTAssertEqual(try ftp.camera(["--die-after", "1200000", ftp.path(name)]).status, 3, "the camera died mid-upload")
            // Seen as the connection dropped, or as a clean end of a JPEG cut short (which of
            // the two sockets relay sees close first varies): kept for a resume either way.
            XCTAssertTrue(
                Subprocess.waitUntil(timeout: 30) {
                    ftp.relay.stderr.contains("\(name) cut off at") || ftp.relay.stderr.contains("\(name) is cut short at")
                }, ftp.relay.stderr)
        }
        let partials = ftp.harness.home.appendingPathComponent("ftp/partial/alice")
        let kept = try FileManager.default.contentsOfDirectory(atPath: partials.path).filter { $0.hasSuffix(".part") }
        let bytes = try kept.reduce(0) { total, name in
            total + (try FileManager.default.attributesOfItem(atPath: partials.appendingPathComponent(name).path)[.size] as? Int ?? 0)
        }
        XCTAssertLessThanOrEqual(bytes, 2_000_000 + 1_200_000, "the limit plus one upload: \(kept.count) partials, \(bytes) bytes")
        XCTAssertGreaterThan(kept.count, 0, "the newest cut upload is kept for its resume")
        XCTAssertTrue(ftp.relay.stderr.contains("dropped the cut-off upload of /IMG_0001.JPG to make room"), ftp.relay.stderr)

        let photo = try ftp.photo("IMG_0005.JPG", bytes: 1_500_000, seed: 75)
        let sent = try ftp.camera([ftp.path("IMG_0005.JPG")])
        XCTAssertTrue(sent.stdout.hasPrefix("IMG_0005.JPG 226"), sent.stdout + sent.stderr + ftp.relay.stderr)
        try ftp.waitForPhotos(1)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256), [SHA256.hex(photo)])
    }

    /// An upload that does not fit beside the photos the spool holds (the gallery is refusing
    /// them) is answered 452 and nothing of it is kept: the camera keeps the photo and sends it
    /// again later.
    func testAnUploadThatDoesNotFitIsRefusedWhole() throws {
        let gallery = try GalleryProcess(arguments: ["--fail-rate", "1", "--fail-status", "503"])
        let ftp = try FTPRun(extra: ["--spool-max-bytes", "2000000"], gallery: gallery)
        try ftp.photo("IMG_0001.JPG", bytes: 1_500_000, seed: 81)
        try ftp.photo("IMG_0002.JPG", bytes: 1_500_000, seed: 82)
        XCTAssertTrue(try ftp.camera([ftp.path("IMG_0001.JPG")]).stdout.hasPrefix("IMG_0001.JPG 226"))
        let refused = try ftp.camera([ftp.path("IMG_0002.JPG")])
        XCTAssertTrue(refused.stdout.hasPrefix("IMG_0002.JPG 452"), refused.stdout + refused.stderr + ftp.relay.stderr)
        XCTAssertTrue(ftp.relay.stderr.contains("IMG_0002.JPG refused at"), ftp.relay.stderr)
        XCTAssertEqual(try ftp.commands(["SIZE IMG_0002.JPG"]), ["550 no such file"], "nothing of it is kept")
    }
}

/// Issue 27: a RAW cut short is never delivered, however its upload ended.
final class FTPRawTests: XCTestCase {
    /// Sends the first 60 % of `file` as `name`, closes the data connection, then sends ABOR
    /// 0.2 s later: an upload that looks finished to relay until the ABOR comes.
    private func closeThenAbort(_ ftp: FTPRun, _ file: String, as name: String) throws {
        let script = """
            import ftplib, sys, time
            f = ftplib.FTP()
            f.connect("127.0.0.1", int(sys.argv[1]), timeout=20)
            f.login("alice", "alice-secret")
            data = open(sys.argv[2], "rb").read()
            conn = f.transfercmd("STOR " + sys.argv[3])
            conn.sendall(data[:len(data) * 6 // 10])
            conn.close()
            time.sleep(0.2)
            f.sock.sendall(b"ABOR\\r\\n")
            print(f.getline()[:3])
            print(f.getline()[:3])
            """
        let result = try ftp.client("python3", ["-c", script, "\(ftp.port)", file, name])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.hasPrefix("226\n150"), result.stdout)
    }

    func testARawCutShortIsNeverDeliveredAndItsWholeRetryIs() throws {
        let ftp = try FTPRun(extra: ["--include-raw"], gallery: try GalleryProcess(arguments: ["--accept-raw"]))
        let tiff = RAWFixture.tiff(body: 400_000, seed: 3)
        try tiff.write(to: ftp.files.appendingPathComponent("DSC_0001.NEF"))
        let unknown = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
        try unknown.write(to: ftp.files.appendingPathComponent("DSC_0002.NEF"))

        try closeThenAbort(ftp, ftp.path("DSC_0001.NEF"), as: "DSC_0001.NEF")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("DSC_0001.NEF is cut short") }, ftp.relay.stderr)
        try closeThenAbort(ftp, ftp.path("DSC_0002.NEF"), as: "DSC_0002.NEF")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("DSC_0002.NEF ended at 180000 bytes and was then aborted") },
            ftp.relay.stderr)
        let aborted = try ftp.camera(["--die-after", "100000", ftp.path("DSC_0001.NEF")])
        XCTAssertEqual(aborted.status, 3)

        for name in ["DSC_0001.NEF", "DSC_0002.NEF"] {
            let whole = try ftp.camera([ftp.path(name)])
            XCTAssertTrue(whole.stdout.hasPrefix("\(name) 226"), whole.stdout + whole.stderr + ftp.relay.stderr)
        }
        try ftp.waitForPhotos(2)
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.first { $0.name == "DSC_0001.NEF" }?.sha256, SHA256.hex(tiff), "the structured RAW arrives whole, once")
        XCTAssertEqual(photos.first { $0.name == "DSC_0002.NEF" }?.sha256, SHA256.hex(unknown), "so does the one relay cannot read")
        XCTAssertEqual(photos.count, 2, "no cut copy was ever delivered: \(photos.map(\.name))")
    }
}
