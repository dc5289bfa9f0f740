import Foundation
import TestSupport
import XCTest

/// Protocol corners real clients reach: a stale REST, ABOR as urgent data or after Telnet
/// bytes, a skipped video over the size limit, many sessions from one address, commands piled
/// up during an upload, a refused upload's data port, a rename of an upload in progress.
final class FTPProtocolCornerTests: XCTestCase {
    /// REST 100, then another command, then a plain STOR of a name with a partial upload: the
    /// STOR starts afresh (the offset died with the other command), so the gallery gets the
    /// photo whole, not the partial's first 100 bytes with the photo spliced after them.
    func testAStaleRestOffsetDoesNotSpliceTheNextUpload() throws {
        let ftp = try FTPRun()
        let photo = try ftp.photo("IMG_0001.JPG", bytes: 400_000, seed: 101)
        XCTAssertEqual(try ftp.camera(["--die-after", "300000", ftp.path("IMG_0001.JPG")]).status, 3)
        let script = """
            import ftplib, sys
            f = ftplib.FTP()
            f.connect("127.0.0.1", int(sys.argv[1]), timeout=30)
            f.login("alice", "alice-secret")
            print(f.sendcmd("REST 100"))
            print(f.sendcmd("NOOP"))
            with open(sys.argv[2], "rb") as source:
                print(f.storbinary("STOR IMG_0001.JPG", source))
            f.quit()
            """
        let result = try ftp.client("python3", ["-c", script, "\(ftp.port)", ftp.path("IMG_0001.JPG")])
        XCTAssertEqual(result.status, 0, result.stderr)
        try ftp.waitForPhotos(1)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256), [SHA256.hex(photo)], result.stdout)
    }

    /// Python ftplib's abort() sends ABOR as urgent data (its last byte out of band), lftp sends
    /// IAC IP, an urgent IAC, then DM ABOR: each is taken as ABOR, idle (225) and mid-upload
    /// (426, then 226), and the session goes on.
    func testAborAsUrgentDataFromFtplibAndLftpIsRecognised() throws {
        let ftp = try FTPRun()
        try ftp.photo("IMG_0001.JPG", bytes: 400_000, seed: 102)
        let script = """
            import ftplib, socket, sys
            f = ftplib.FTP()
            f.connect("127.0.0.1", int(sys.argv[1]), timeout=20)
            f.login("alice", "alice-secret")
            print(f.abort()[:3])
            conn = f.transfercmd("STOR IMG_0001.JPG")
            with open(sys.argv[2], "rb") as source:
                conn.sendall(source.read(100000))
            print(f.abort()[:3])
            conn.close()
            print(f.getresp()[:3])
            f.sock.sendall(b"\\xff\\xf4")
            f.sock.send(b"\\xff", socket.MSG_OOB)
            f.sock.sendall(b"\\xf2ABOR\\r\\n")
            print(f.getresp()[:3])
            print(f.sendcmd("NOOP")[:3])
            f.quit()
            """
        let result = try ftp.client("python3", ["-c", script, "\(ftp.port)", ftp.path("IMG_0001.JPG")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n"), ["225", "426", "226", "225", "200"], result.stdout + result.stderr)
    }

    /// A video over `--ftp-max-size` is drained and answered 226 like any skipped video: a 426
    /// or 552 would make the camera send it again forever, and its bytes never touch the disk.
    func testASkippedVideoOverTheSizeLimitIsAnswered226() throws {
        let ftp = try FTPRun(extra: ["--ftp-max-size", "100K"])
        try Data(repeating: 0x42, count: 300_000).write(to: ftp.files.appendingPathComponent("CLIP0001.MP4"))
        let curl = try ftp.client(
            "curl", ["-sS", "-u", "alice:alice-secret", "-T", ftp.path("CLIP0001.MP4"), "ftp://127.0.0.1:\(ftp.port)/"])
        XCTAssertEqual(curl.status, 0, curl.stderr + ftp.relay.stderr)
        XCTAssertEqual(try ftp.commands(["SIZE CLIP0001.MP4"]), ["213 300000"], "received whole, then skipped")
    }

    /// One address holds at most four control connections, logged in or not: the fifth is
    /// answered 421 and logged, so a stranger cannot take every slot from the cameras.
    func testOneAddressGetsAtMostFourSessions() throws {
        let ftp = try FTPRun()
        let script = """
            import socket, sys
            port = int(sys.argv[1])
            held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(5)]
            for connection in held:
                print(connection.makefile().readline()[:3])
            """
        let result = try ftp.client("python3", ["-c", script, "\(ftp.port)"])
        XCTAssertEqual(result.stdout.split(separator: "\n"), ["220", "220", "220", "220", "421"], result.stdout + result.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("4 sessions from 127.0.0.1 are open already") }, ftp.relay.stderr)
    }

    /// A client that sends command after command during an upload is answered 421 and let go
    /// once 32 are waiting, instead of relay holding every line until the upload ends.
    func testCommandsPiledUpDuringAnUploadEndTheSession() throws {
        let ftp = try FTPRun()
        let script = """
            import ftplib, sys
            f = ftplib.FTP()
            f.connect("127.0.0.1", int(sys.argv[1]), timeout=20)
            f.login("alice", "alice-secret")
            conn = f.transfercmd("STOR IMG_0001.JPG")
            conn.sendall(b"\\xff\\xd8" + b"\\0" * 1000)
            f.sock.sendall(b"NOOP\\r\\n" * 40)
            print(f.getline()[:3])
            """
        let result = try ftp.client("python3", ["-c", script, "\(ftp.port)"])
        XCTAssertEqual(result.stdout.split(separator: "\n"), ["421"], result.stdout + result.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("more than 32 commands during the upload of IMG_0001.JPG") },
            ftp.relay.stderr)
    }

    /// A refused STOR (here a name that is not a photo's) closes the passive port it was
    /// prepared with: nothing listens there once the answer is out.
    func testARefusedUploadClosesItsPassivePort() throws {
        let lines = try whileUploading(
            try FTPRun(),
            """
            host, data_port = second.makepasv()
            try:
                second.sendcmd("STOR notes.txt")
            except ftplib.error_perm as error:
                print(str(error)[:3])
            try:
                socket.create_connection((host, data_port), timeout=20).close()
                print("still listening")
            except ConnectionRefusedError:
                print("closed")
            """)
        XCTAssertEqual(lines, ["553", "closed"])
    }

    /// A camera whose Wi-Fi froze mid-upload sends the file again on a new connection while the
    /// old one is still open (no FIN ever came). The retry takes over at once: the stale upload is
    /// cut, the retry gets 226, and the photo reaches the gallery once, whole, long before
    /// `--ftp-idle` (5 minutes) would have ended the dead connection.
    func testACamerasRetryTakesOverAnUploadThatWentSilent() throws {
        let ftp = try FTPRun()
        let photo = try ftp.photo("IMG_0001.JPG", bytes: 300_000, seed: 27)
        let lines = try whileUploading(
            ftp,
            """
            import time
            started = time.monotonic()
            with open(sys.argv[2], "rb") as whole:
                print(second.storbinary("STOR IMG_0001.JPG", whole)[:3])
            print("within 10 s" if time.monotonic() - started < 10 else "after %.1f s" % (time.monotonic() - started))
            """, arguments: [ftp.path("IMG_0001.JPG")])
        XCTAssertEqual(lines, ["226", "within 10 s"], ftp.relay.stderr)
        try ftp.waitForPhotos(1)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256), [SHA256.hex(photo)], "the retry's bytes, whole")
        XCTAssertTrue(ftp.relay.stderr.contains("the camera's retry takes over"), ftp.relay.stderr)
    }

    /// The same, for a camera that resumes: SIZE, then REST from there and STOR of the rest. The
    /// stale upload's bytes are kept for it, and the photo arrives whole.
    func testACamerasResumeTakesOverAnUploadThatWentSilent() throws {
        let ftp = try FTPRun()
        let photo = try ftp.photo("IMG_0001.JPG", bytes: 300_000, seed: 28)
        let lines = try whileUploading(
            ftp,
            """
            import time
            # As a camera would after a glance at SIZE; asked until relay has the 1,002 bytes
            # the stale upload sent (its connection may still be reading them).
            deadline = time.monotonic() + 20
            size = second.size("IMG_0001.JPG")
            while size < 1002 and time.monotonic() < deadline:
                time.sleep(0.05)
                size = second.size("IMG_0001.JPG")
            with open(sys.argv[2], "rb") as whole:
                whole.seek(size)
                print(second.storbinary("STOR IMG_0001.JPG", whole, rest=size)[:3])
            print("resumed from %d" % size)
            """, arguments: [ftp.path("IMG_0001.JPG")], firstBytes: photo.prefix(1002))
        XCTAssertEqual(lines, ["226", "resumed from 1002"], ftp.relay.stderr)
        try ftp.waitForPhotos(1)
        XCTAssertEqual(try ftp.gallery.photos().map(\.sha256), [SHA256.hex(photo)], "the stale upload's bytes and the resume's, whole")
    }

    /// A second session of the same user cannot rename a partial that is being uploaded: the
    /// RNTO is answered 450 and the upload goes on into its own file.
    func testAnUploadInProgressCannotBeRenamedAway() throws {
        let lines = try whileUploading(
            try FTPRun(),
            """
            print(second.sendcmd("RNFR IMG_0001.JPG")[:3])
            try:
                print(second.sendcmd("RNTO IMG_0009.JPG")[:3])
            except ftplib.error_temp as error:
                print(str(error)[:3])
            """)
        XCTAssertEqual(lines, ["350", "450"])
    }

    /// Runs `body` (Python) with `second`, a logged-in ftplib session, while `first`, another
    /// session of the same user, has an upload of IMG_0001.JPG under way; returns what it printed.
    private func whileUploading(_ ftp: FTPRun, _ body: String, arguments: [String] = [], firstBytes: Data? = nil) throws -> [String] {
        let sent =
            firstBytes.map { "bytes.fromhex(\"\($0.map { String(format: "%02x", $0) }.joined())\")" } ?? "b\"\\xff\\xd8\" + b\"\\0\" * 1000"
        let script = """
            import ftplib, socket, sys
            def session():
                f = ftplib.FTP()
                f.connect("127.0.0.1", int(sys.argv[1]), timeout=20)
                f.login("alice", "alice-secret")
                return f
            first = session()
            upload = first.transfercmd("STOR IMG_0001.JPG")
            upload.sendall(\(sent))
            second = session()

            """ + body
        let result = try ftp.client("python3", ["-c", script, "\(ftp.port)"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
