import Foundation
import TestSupport
import XCTest

/// `relay run --ftp` against FTP clients nobody here wrote (curl, Python ftplib, lftp) and the
/// camera-like script, each upload checked byte for byte in the real gallery.
final class FTPReceiverTests: XCTestCase {
    func testCurlPassiveAndActiveFtplibLftpAndTheCameraScriptEachDeliverOnceByteIdentical() throws {
        let ftp = try FTPRun()
        var sent: [String: Data] = [:]
        for (index, name) in ["CURL_PASV.JPG", "CURL_PORT.JPG", "FTPLIB.JPG", "LFTP.JPG", "CAMERA.JPG", "CAMERA_ACTIVE.JPG"].enumerated() {
            sent[name] = try ftp.photo(name, bytes: 300_000 + index * 50_000, seed: UInt64(index + 1))
        }
        let url = "ftp://127.0.0.1:\(ftp.port)/DCIM/100CANON/"
        let credentials = "alice:alice-secret"
        var result = try ftp.client("curl", ["-sS", "--ftp-create-dirs", "-u", credentials, "-T", ftp.path("CURL_PASV.JPG"), url])
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try ftp.client("curl", ["-sS", "--ftp-port", "-", "-u", credentials, "-T", ftp.path("CURL_PORT.JPG"), url])
        XCTAssertEqual(result.status, 0, "active mode: \(result.stderr)")
        let ftplib = """
            import ftplib, sys
            f = ftplib.FTP()
            f.connect("127.0.0.1", int(sys.argv[1]), timeout=30)
            f.login("alice", "alice-secret")
            with open(sys.argv[2], "rb") as photo:
                print(f.storbinary("STOR FTPLIB.JPG", photo))
            f.quit()
            """
        result = try ftp.client("python3", ["-c", ftplib, "\(ftp.port)", ftp.path("FTPLIB.JPG")])
        XCTAssertEqual(result.stdout.prefix(3), "226", result.stdout + result.stderr)
        result = try ftp.client(
            "lftp",
            [
                "-c",
                "set net:max-retries 1; open -u \(credentials) -p \(ftp.port) 127.0.0.1; "
                    + "mkdir -p /lftp; cd /lftp; put \(ftp.path("LFTP.JPG"))",
            ])
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try ftp.camera(["--folder", "/DCIM/101CANON", ftp.path("CAMERA.JPG")])
        XCTAssertTrue(result.stdout.hasPrefix("CAMERA.JPG 226"), result.stdout + result.stderr)
        result = try ftp.camera(["--active", ftp.path("CAMERA_ACTIVE.JPG")])
        XCTAssertTrue(result.stdout.hasPrefix("CAMERA_ACTIVE.JPG 226"), result.stdout + result.stderr)

        try ftp.waitForPhotos(6)
        // The spool is empty: nothing is left that could reach the gallery a second time.
        XCTAssertTrue(
            try Subprocess.waitUntil(timeout: 30) {
                let status = try ftp.harness.status()
                return status.queued.isEmpty && status.inFlight.isEmpty
            })
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.map(\.name).sorted(), sent.keys.sorted(), "each photo once, under its camera name")
        for photo in photos { XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(sent[photo.name])), photo.name) }
        let listing = try ftp.client("curl", ["-sS", "-u", credentials, "--list-only", url])
        XCTAssertEqual(
            listing.stdout.split(whereSeparator: \.isNewline).map(String.init).sorted(), ["CURL_PASV.JPG", "CURL_PORT.JPG"], listing.stderr)
    }
}
