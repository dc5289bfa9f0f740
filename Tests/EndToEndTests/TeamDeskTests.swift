import Foundation
import TestSupport
import XCTest

/// A team and one desk (issue 48), all real processes: field relays (a simulated camera, hot
/// folders) send over HTTP and FTP into a desk relay's receivers, the desk holds for review and
/// sends what is approved to a real gallery; phones and FTP clients nobody here wrote send too.
final class TeamDeskTests: XCTestCase {
    /// Anna's camera relay over HTTP and Ben's hot-folder relay over FTP, the same file names on
    /// both: every photo reaches the desk once, credited to who shot it, held until approved,
    /// then at the gallery once, byte for byte, Anna's carrying her own stamp.
    func testTwoFieldRelaysOverHTTPAndFTPReachTheGalleryOnceEachCreditedToWhoShotIt() throws {
        let desk = try DeskRun(config: ["--send", "approved"])
        XCTAssertEqual(try desk.harness.relay("stamp", "set", "creator=The Desk", "credit=Gala / {photographer}").status, 0)
        let anna = try desk.harness.relay("stamp", "set", "--for", "anna", "creator=Anna Roy")
        XCTAssertEqual(anna.status, 0, anna.stderr)

        let camera = try CameraSimProcess(profile: "generic", arguments: ["--initial-photos", "0"])
        let annaField = try desk.field(over: .http, as: "anna")
        let annaRun = try annaField.startCameraRun(camera.cameraURL)
        defer { _ = annaRun.stop(signal: SIGKILL) }
        let benField = try desk.field(over: .ftp, as: "ben")
        let benRun = try benField.startRun()
        defer { _ = benRun.stop(signal: SIGKILL) }
        annaRun.assertSays("connected to")
        camera.shootByStdin(3)
        let benPhotos = try benField.dropPhotos(3)

        let allHeld = try Subprocess.waitUntil(timeout: 90) { try desk.held().count >= 6 }
        let held = try desk.held()
        XCTAssertTrue(
            allHeld, "the desk holds \(held.count) of 6; desk:\n\(desk.relay.stderr.suffix(3000))\nanna:\n\(annaRun.stderr.suffix(2000))")
        XCTAssertEqual(held.filter { $0.photographer == "anna" }.count, 3, "\(held.map { ($0.name, $0.photographer) })")
        XCTAssertEqual(held.filter { $0.photographer == "ben" }.count, 3, "\(held.map { ($0.name, $0.photographer) })")
        XCTAssertEqual(Set(held.map(\.name)).count, 6, "two people's IMG_0001.JPG stay two photos: \(held.map(\.name))")
        XCTAssertTrue(held.filter { $0.photographer == "anna" }.allSatisfy { $0.name.hasPrefix("anna_") }, "\(held.map(\.name))")
        // The camera, from the file's own EXIF: the simulator's body for Anna's, none for Ben's test files.
        XCTAssertTrue(held.filter { $0.photographer == "anna" }.allSatisfy { $0.camera != nil }, "\(held.map { ($0.name, $0.camera) })")
        XCTAssertTrue(held.filter { $0.photographer == "ben" }.allSatisfy { $0.camera == nil }, "\(held.map { ($0.name, $0.camera) })")

        let approve = try desk.harness.relay(["review", "approve"] + held.map(\.id))
        XCTAssertEqual(approve.status, 0, approve.stderr)
        try desk.waitForGallery(6)
        try desk.assertNothingLeft()
        let photos = try desk.gallery.photos()
        XCTAssertEqual(photos.count, 6, "each photo once: \(photos.map(\.name))")
        for photo in photos {
            let body = try Data(contentsOf: desk.gallery.photosDirectory.appendingPathComponent(photo.name))
            let text = String(decoding: body.prefix(200_000), as: UTF8.self)
            if photo.name.hasPrefix("anna_") {
                XCTAssertTrue(text.contains("Anna Roy"), "\(photo.name) credits Anna (her own stamp over the desk's)")
                XCTAssertTrue(text.contains("Gala / anna"), "\(photo.name): {photographer} in the desk's credit")
            } else {
                XCTAssertTrue(text.contains("The Desk") && text.contains("Gala / ben"), "\(photo.name) carries the desk's stamp for Ben")
                // Ben is the FTP receiver's only login: his photos keep their camera names.
                let original = try XCTUnwrap(benPhotos[photo.name], photo.name)
                // The stamp rewrote only the header: the camera's image data arrives unchanged.
                XCTAssertEqual(body.suffix(original.count / 2), original.suffix(original.count / 2), "\(photo.name)'s image data")
            }
        }
        let history = try desk.harness.relay("history")
        XCTAssertTrue(history.stdout.contains("BY") && history.stdout.contains("anna") && history.stdout.contains("ben"), history.stdout)
        XCTAssertTrue(
            try annaField.history().allSatisfy { $0.success } && (try benField.history().allSatisfy { $0.success }),
            "each field relay had its photos delivered to the desk at the first answer")
    }

    /// A venue's Wi-Fi loses the desk's 201 after the commit: the field relay sends again with
    /// the same Idempotency-Key, and the desk answers it as the first time without a second photo.
    func testAnAnswerLostAfterTheCommitLeavesOnePhotoAtTheDesk() throws {
        let desk = try DeskRun()
        let proxy = try CutAnswerProxy(target: desk.httpPort, cut: 2, anyAnswer: false)
        defer { proxy.stop() }
        let field = try desk.field(over: .http, as: "anna", url: "http://127.0.0.1:\(proxy.port)/upload")
        let run = try field.startRun()
        defer { _ = run.stop(signal: SIGKILL) }
        let sent = try field.dropPhotos(3)
        try desk.waitForGallery(3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { proxy.cuts == 2 }, proxy.output)
        // The field relay settled every photo (none left to send), so no further copy can come.
        try field.assertSpoolEmpty()
        try desk.assertNothingLeft()
        let photos = try desk.gallery.photos()
        XCTAssertEqual(photos.map(\.name).sorted(), sent.keys.map { "anna_" + $0 }.sorted(), "one photo each at the desk and its gallery")
        for photo in photos { XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(sent[String(photo.name.dropFirst("anna_".count))]))) }
        XCTAssertEqual(desk.relay.stderr.components(separatedBy: "was taken before").count - 1, 2, desk.relay.stderr)
        XCTAssertTrue(try field.history().filter { !$0.success }.count >= 2, "the field relay saw the lost answers as failures to retry")
    }

    /// A phone's Camera2URL request (multipart with a note), a bare PUT, lftp and curl through a
    /// temporary name all deliver; every bad request gets a clear 4xx and the desk keeps nothing.
    func testPhonesAndFTPClientsDeliverAndBadInputKeepsNothing() throws {
        let desk = try DeskRun()
        let files = desk.harness.root.appendingPathComponent("phone")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        var sent: [String: Data] = [:]
        for (index, name) in ["photo-1764340000.jpg", "PUT_0001.JPG", "LFTP_0001.JPG", "CURL_0001.JPG"].enumerated() {
            sent[name] = try JPEGFixture.write(
                to: files.appendingPathComponent(name), count: 150_000 + index * 10_000, seed: UInt64(40 + index))
        }
        let path = { (name: String) in files.appendingPathComponent(name).path }
        let bearer = "Authorization: Bearer \(DeskRun.tokens["anna"]!)"

        let phone = try desk.curl([
            "-H", bearer, "-F", "note=first dance", "-F", "file=@\(path("photo-1764340000.jpg"));type=image/jpeg", desk.uploadURL,
        ])
        XCTAssertEqual(phone.status, 201, phone.body)
        XCTAssertTrue(phone.body.contains("\"photographer\":\"anna\""), phone.body)
        let put = try desk.curl(["-u", "ben:\(DeskRun.tokens["ben"]!)", "-T", path("PUT_0001.JPG"), desk.uploadURL + "/PUT_0001.JPG"])
        XCTAssertEqual(put.status, 201, put.body)
        let lftp = try XCTUnwrap(Subprocess.which("lftp"))
        let viaLftp = try Subprocess.run(
            lftp,
            [
                "-c",
                "set xfer:use-temp-file yes; set net:max-retries 1; open -u ben,\(DeskRun.ftpPassword) -p \(desk.ftpPort) 127.0.0.1; "
                    + "put \(path("LFTP_0001.JPG"))",
            ], timeout: 60)
        XCTAssertEqual(viaLftp.status, 0, viaLftp.stderr)
        XCTAssertTrue(desk.relay.stderr.contains(".in.LFTP_0001.JPG"), "lftp wrote a temporary name first:\n\(desk.relay.stderr)")
        let curl = try XCTUnwrap(Subprocess.which("curl"))
        let viaCurl = try Subprocess.run(
            curl,
            [
                "-sS", "-u", "ben:\(DeskRun.ftpPassword)", "-T", path("CURL_0001.JPG"), "ftp://127.0.0.1:\(desk.ftpPort)/CURL_0001.JPG.tmp",
                "-Q", "-RNFR CURL_0001.JPG.tmp", "-Q", "-RNTO CURL_0001.JPG",
            ], timeout: 60)
        XCTAssertEqual(viaCurl.status, 0, viaCurl.stderr)
        try desk.waitForGallery(4)
        try desk.assertNothingLeft()
        let delivered = try desk.gallery.photos()
        XCTAssertEqual(
            Set(delivered.map(\.name)), ["anna_photo-1764340000.jpg", "ben_PUT_0001.JPG", "LFTP_0001.JPG", "CURL_0001.JPG"],
            "the HTTP inbox has two logins (names after them), the FTP receiver one")
        for photo in delivered {
            let original = ["anna_", "ben_"].reduce(photo.name) { name, prefix in
                name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name
            }
            XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(sent[original])), photo.name)
        }
        let historyBefore = try desk.harness.history().count

        // A client that gives up on an upload deletes its temporary file: nothing of it is kept.
        let python = try XCTUnwrap(Subprocess.which("python3"))
        let deleted = try Subprocess.run(
            python,
            [
                "-c",
                """
                import ftplib, io, sys
                f = ftplib.FTP()
                f.connect("127.0.0.1", int(sys.argv[1]), timeout=30)
                f.login("ben", sys.argv[2])
                print(f.storbinary("STOR .GONE_0001.JPG.part", io.BytesIO(b"\\xff\\xd8 half a photo")))
                print(f.sendcmd("SIZE .GONE_0001.JPG.part"))
                print(f.delete(".GONE_0001.JPG.part"))
                try:
                    print(f.sendcmd("SIZE .GONE_0001.JPG.part"))
                except ftplib.error_perm as error:
                    print(error)
                f.quit()
                """, "\(desk.ftpPort)", DeskRun.ftpPassword,
            ], timeout: 60)
        XCTAssertEqual(
            deleted.stdout.split(separator: "\n").map { String($0.prefix(3)) }, ["226", "213", "250", "550"],
            deleted.stdout + deleted.stderr)

        // Every bad request: its answer comes once the desk has decided, so nothing can be kept later.
        let notJPEG = files.appendingPathComponent("notes.txt")
        try Data(String(repeating: "not a photo\n", count: 100).utf8).write(to: notJPEG)
        let cut = files.appendingPathComponent("CUT_0001.JPG")
        try sent["PUT_0001.JPG"]!.prefix(60_000).write(to: cut)
        let bad: [(String, [String], Int)] = [
            ("no token", ["-T", path("PUT_0001.JPG"), desk.uploadURL + "/X1.JPG"], 401),
            (
                "wrong token",
                ["-H", "Authorization: Bearer wrong-token-0000000000", "-T", path("PUT_0001.JPG"), desk.uploadURL + "/X2.JPG"], 401
            ),
            (
                "anna's name, ben's token",
                ["-u", "anna:\(DeskRun.tokens["ben"]!)", "-T", path("PUT_0001.JPG"), desk.uploadURL + "/X3.JPG"], 401
            ),
            ("not a JPEG", ["-H", bearer, "-T", notJPEG.path, desk.uploadURL + "/X4.JPG"], 415),
            ("a cut JPEG", ["-H", bearer, "-T", cut.path, desk.uploadURL + "/X5.JPG"], 400),
            ("no file part", ["-H", bearer, "-F", "note=nothing", desk.uploadURL], 400),
            ("a path in the name", ["-H", bearer, "-F", "file=@\(path("PUT_0001.JPG"));filename=../../etc/X6.JPG", desk.uploadURL], 400),
            ("a path in the URL", ["-H", bearer, "-T", path("PUT_0001.JPG"), desk.uploadURL + "/sub%2FX7.JPG"], 400),
            ("two photos", ["-H", bearer, "-F", "a=@\(path("PUT_0001.JPG"))", "-F", "b=@\(path("LFTP_0001.JPG"))", desk.uploadURL], 400),
            ("a GET", ["-H", bearer, desk.uploadURL], 405),
        ]
        for (what, arguments, status) in bad {
            let answer = try desk.curl(arguments)
            XCTAssertEqual(answer.status, status, "\(what): \(answer.body)")
            XCTAssertTrue(answer.body.contains("\"error\""), "\(what) is said: \(answer.body)")
        }
        let status = try desk.harness.status()
        XCTAssertEqual(status.queued.count + status.inFlight.count + status.failed.count, 0, "nothing kept of a bad request")
        let incoming = desk.harness.home.appendingPathComponent("spool/.incoming")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: incoming.path), [], "no part of a bad request is left")
        XCTAssertEqual(try desk.harness.history().count, historyBefore, "the history is unchanged")
        XCTAssertEqual(try desk.gallery.photos().count, 4)
    }

    /// The desk killed (SIGKILL) while a field relay uploads: restarted, it ends with every photo
    /// once, and the field relay's retries (same Idempotency-Key) add none twice.
    func testTheDeskKilledDuringUploadsLosesNothingAndKeepsNothingTwice() throws {
        let desk = try DeskRun()
        // Slowed, so that uploads are on their way when the desk dies.
        let field = try desk.field(over: .http, as: "ben", config: ["--max-bytes-per-second", "4M"])
        let run = try field.startRun()
        defer { _ = run.stop(signal: SIGKILL) }
        var sent: [String: Data] = [:]
        for number in 1...8 {
            let name = String(format: "KILL_%04d.JPG", number)
            let temporary = field.dropFolder.appendingPathComponent(".\(name).part")
            sent[name] = try JPEGFixture.write(to: temporary, count: 1_500_000 + number * 1000, seed: UInt64(70 + number))
            try FileManager.default.moveItem(at: temporary, to: field.dropFolder.appendingPathComponent(name))
        }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { desk.relay.stderr.contains("spooled ben_KILL_") }, desk.relay.stderr)
        try desk.killAndRestart()
        try desk.waitForGallery(8)
        try field.assertSpoolEmpty()
        try desk.assertNothingLeft()
        let photos = try desk.gallery.photos()
        XCTAssertEqual(photos.map(\.name).sorted(), sent.keys.map { "ben_" + $0 }.sorted(), "each photo once")
        for photo in photos { XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(sent[String(photo.name.dropFirst(4))]))) }
        let incoming = desk.harness.home.appendingPathComponent("spool/.incoming")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: incoming.path), [], "nothing half kept")
    }

    /// With `--include-raw` a RAW is taken whole, by its structure: one cut short (its strip
    /// points past its end) is refused and nothing of it is kept; without it, a RAW is refused.
    func testARAWIsTakenWholeAndRefusedCutShort() throws {
        let desk = try DeskRun(run: ["--include-raw"], gallery: try GalleryProcess(arguments: ["--accept-raw"]))
        let files = desk.harness.root.appendingPathComponent("raw")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        let whole = RAWFixture.tiff(body: 300_000, seed: 9)
        try whole.write(to: files.appendingPathComponent("DSC_0001.NEF"))
        try whole.prefix(200_000).write(to: files.appendingPathComponent("DSC_0002.NEF"))
        let bearer = "Authorization: Bearer \(DeskRun.tokens["anna"]!)"
        let cut = try desk.curl(["-H", bearer, "-T", files.appendingPathComponent("DSC_0002.NEF").path, desk.uploadURL + "/DSC_0002.NEF"])
        XCTAssertEqual(cut.status, 400, cut.body)
        XCTAssertTrue(cut.body.contains("cut short"), cut.body)
        let taken = try desk.curl(["-H", bearer, "-T", files.appendingPathComponent("DSC_0001.NEF").path, desk.uploadURL + "/DSC_0001.NEF"])
        XCTAssertEqual(taken.status, 201, taken.body)
        try desk.waitForGallery(1)
        try desk.assertNothingLeft()
        let photos = try desk.gallery.photos()
        XCTAssertEqual(photos.map(\.name), ["anna_DSC_0001.NEF"], "only the whole RAW")
        XCTAssertEqual(photos.first?.sha256, SHA256.hex(whole))

        let plain = try DeskRun()
        let refused = try plain.curl([
            "-H", bearer, "-T", files.appendingPathComponent("DSC_0001.NEF").path, plain.uploadURL + "/DSC_0001.NEF",
        ])
        XCTAssertEqual(refused.status, 415, refused.body)
        XCTAssertTrue(refused.body.contains("--include-raw"), refused.body)
    }

    /// An FTP server's 553 is a refusal: the field relay fails the photo with the answer recorded
    /// instead of sending it again for ever.
    func testAnFTPRefusalFailsThePhotoWithTheServersAnswer() throws {
        let desk = try DeskRun()
        let field = try desk.field(over: .ftp, as: "ben", path: "in/{stem}.txt")
        let run = try field.startRun()
        defer { _ = run.stop(signal: SIGKILL) }
        try field.dropPhotos(1)
        run.assertSays("FAILED for good")
        let failed = try XCTUnwrap(try field.history().first)
        XCTAssertFalse(failed.success)
        XCTAssertEqual(failed.attempt, 1, "refused at the first answer, never retried")
        XCTAssertTrue(failed.errorMessage?.contains("553") ?? false, failed.errorMessage ?? "")
        XCTAssertEqual(try field.status().failed.count, 1)
    }
}
