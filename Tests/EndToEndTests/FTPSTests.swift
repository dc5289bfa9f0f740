import Foundation
import TestSupport
import XCTest

/// Explicit FTPS (`relay run --ftp-tls`): curl, Python's FTP_TLS and lftp upload over TLS, the
/// fingerprint printed is the certificate's and stays across restarts, and `required` refuses
/// the clear.
final class FTPSTests: XCTestCase {
    /// Python: an FTP_TLS session logged in as alice to the port in argv[1] (a self-signed
    /// certificate, as a camera accepts it once approved).
    private static let tlsLogin = """
        import ftplib, ssl, sys
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        f = ftplib.FTP_TLS(context=context)
        f.connect("127.0.0.1", int(sys.argv[1]), timeout=30)
        f.login("alice", "alice-secret")

        """

    private func printedFingerprint(_ ftp: FTPRun) throws -> String {
        let pattern = try NSRegularExpression(pattern: "((?:[0-9A-F]{2}:){31}[0-9A-F]{2})")
        let text = ftp.relay.stderr
        let match = try XCTUnwrap(pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).last, text)
        return String(text[try XCTUnwrap(Range(match.range(at: 1), in: text))])
    }

    private func certificateFingerprint(_ ftp: FTPRun) throws -> String {
        let certificate = ftp.harness.home.appendingPathComponent("ftp/tls/certificate.pem").path
        let script = """
            import hashlib, ssl, sys
            der = ssl.PEM_cert_to_DER_cert(open(sys.argv[1]).read())
            print(":".join("%02X" % b for b in hashlib.sha256(der).digest()))
            """
        return try ftp.client("python3", ["-c", script, certificate]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testCurlLftpAndFtplibPassiveAndActiveUploadOverTLSAndTheFingerprintPrintedIsTheCertificates() throws {
        let ftp = try FTPRun(extra: ["--ftp-tls", "optional"])
        XCTAssertEqual(try printedFingerprint(ftp), try certificateFingerprint(ftp))
        var sent: [String: Data] = [:]
        for (index, name) in ["CURL_TLS.JPG", "FTP_TLS.JPG", "FTP_TLS_PORT.JPG", "LFTP_TLS.JPG", "PLAIN.JPG"].enumerated() {
            sent[name] = try ftp.photo(name, bytes: 400_000 + index * 10_000, seed: UInt64(70 + index))
        }
        let url = "ftp://127.0.0.1:\(ftp.port)/"
        var result = try ftp.client("curl", ["-sS", "-k", "--ssl-reqd", "-u", "alice:alice-secret", "-T", ftp.path("CURL_TLS.JPG"), url])
        XCTAssertEqual(result.status, 0, result.stderr)
        let ftplib =
            Self.tlsLogin + """
                f.prot_p()
                with open(sys.argv[2], "rb") as photo:
                    print(f.storbinary("STOR FTP_TLS.JPG", photo))
                f.set_pasv(False)
                with open(sys.argv[3], "rb") as photo:
                    print(f.storbinary("STOR FTP_TLS_PORT.JPG", photo))
                f.quit()
                """
        // Active FTPS is ftplib's: curl 7.88.1 (Debian 12) sends an active data connection's bytes
        // in the clear after PROT P, which relay's TLS handshake then refuses.
        result = try ftp.client("python3", ["-c", ftplib, "\(ftp.port)", ftp.path("FTP_TLS.JPG"), ftp.path("FTP_TLS_PORT.JPG")])
        XCTAssertEqual(result.stdout.split(separator: "\n").map { $0.prefix(3) }, ["226", "226"], result.stdout + result.stderr)
        result = try ftp.client(
            "lftp",
            [
                "-c",
                "set ftp:ssl-force true; set ftp:ssl-protect-data true; set ssl:verify-certificate no; "
                    + "set net:max-retries 1; open -u alice,alice-secret -p \(ftp.port) 127.0.0.1; put \(ftp.path("LFTP_TLS.JPG"))",
            ])
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try ftp.client("curl", ["-sS", "-u", "alice:alice-secret", "-T", ftp.path("PLAIN.JPG"), url])
        XCTAssertEqual(result.status, 0, "optional: the clear still works: \(result.stderr)")

        try ftp.waitForPhotos(5)
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.map(\.name).sorted(), sent.keys.sorted())
        for photo in photos { XCTAssertEqual(photo.sha256, SHA256.hex(try XCTUnwrap(sent[photo.name])), photo.name) }
    }

    func testRequiredRefusesTheClearAndTheCertificateStaysAcrossRestarts() throws {
        let ftp = try FTPRun(extra: ["--ftp-tls", "required"])
        let first = try printedFingerprint(ftp)
        try ftp.photo("IMG_0001.JPG", bytes: 100_000, seed: 81)
        let plain = try ftp.client(
            "curl", ["-sS", "-u", "alice:alice-secret", "-T", ftp.path("IMG_0001.JPG"), "ftp://127.0.0.1:\(ftp.port)/"])
        XCTAssertNotEqual(plain.status, 0)
        XCTAssertTrue(plain.stderr.contains("530"), plain.stderr)
        let clearData =
            Self.tlsLogin + """
                for attempt in (f.prot_c, lambda: f.storbinary("STOR IMG_0001.JPG", open(sys.argv[2], "rb"))):
                    try:
                        attempt()
                        print("accepted")
                    except ftplib.error_perm as error:
                        print(str(error)[:3])
                f.quit()
                """
        let result = try ftp.client("python3", ["-c", clearData, "\(ftp.port)", ftp.path("IMG_0001.JPG")])
        XCTAssertEqual(result.stdout.split(separator: "\n"), ["536", "521"], result.stderr)
        XCTAssertEqual(try ftp.gallery.photos().count, 0)

        _ = ftp.relay.stop(signal: SIGTERM)
        try ftp.restart()
        XCTAssertEqual(try printedFingerprint(ftp), first, "the camera need not approve a new certificate after a restart")
    }
}
