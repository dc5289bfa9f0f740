import Foundation
import TestSupport
import XCTest

/// `relay run --ftp` and `relay ftp-setup` flags: what is refused, with what message, and what
/// the setup text tells the photographer (never the password).
final class FTPCommandLineTests: XCTestCase {
    func testBadFTPFlagsAreRefusedWithWhatToDo() throws {
        let harness = try RelayHarness()
        let cases: [([String], String)] = [
            (
                ["run", "--ftp", "2121", "--ftp-user", "alice"],
                "no password for FTP user alice: set it in the environment (export RELAY_FTP_PASSWORD=…)"
            ),
            (["run", "--ftp", "2121", "--ftp-user", "alice:ALICE_PW"], "export ALICE_PW=…"),
            (["run", "--ftp", "2121"], "the FTP receiver needs a user: --ftp-user NAME"),
            (["run", "--ftp", "host:port", "--ftp-user", "a"], "--ftp 'host:port' is not [ADDRESS:]PORT"),
            (["run", "--ftp-user", "alice", "--folder", harness.dropFolder.path], "--ftp-user is for the FTP receiver"),
            (["run", "--ftp", "2121", "--ftp-user", "../x"], "FTP user name '../x' must be"),
            (["run", "--ftp", "2121", "--ftp-user", "a", "--ftp-tls", "sometimes"], "--ftp-tls 'sometimes' must be off, optional"),
            (["ftp-setup"], "the FTP receiver needs a user"),
        ]
        harness.environment["RELAY_FTP_PASSWORD"] = ""
        for (arguments, message) in cases {
            let result = try Subprocess.run(TestPaths.relayExecutable, arguments, environment: harness.environment, timeout: 30)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    func testATakenPortStopsTheRunAtOnceAndSetupTextShowsNoPassword() throws {
        let ftp = try FTPRun()
        let other = try RelayHarness(sendingTo: ftp.gallery, note: "")
        other.environment["RELAY_FTP_PASSWORD"] = "pw-one"
        let taken = try other.relay("run", "--ftp", "127.0.0.1:\(ftp.port)", "--ftp-user", "alice")
        XCTAssertNotEqual(taken.status, 0)
        XCTAssertTrue(taken.stderr.contains("cannot receive FTP on 127.0.0.1:\(ftp.port)"), taken.stderr)

        let setup = try other.relay("ftp-setup", "--ftp", "192.168.1.10:2121", "--ftp-user", "alice")
        XCTAssertEqual(setup.status, 0, setup.stderr)
        for expected in ["server (host name): 192.168.1.10", "port: 2121", "user: alice", "security: plain FTP"] {
            XCTAssertTrue(setup.stdout.contains(expected), setup.stdout)
        }
        XCTAssertFalse(setup.stdout.contains("pw-one"), "the password is never printed")
        XCTAssertFalse(ftp.relay.stderr.contains("alice-secret"), "nor logged")
    }
}
