import RelayCore
import XCTest

@testable import FTPReceiver

/// The receiver's pure rules, without sockets: accounts, listen addresses, peers, login slowdown.
final class FTPReceiverRulesTests: XCTestCase {
    func testAccountsTakeTheirPasswordFromTheEnvironmentOnly() throws {
        let environment = ["RELAY_FTP_PASSWORD": "one", "BEN_PW": "two", "EMPTY": ""]
        XCTAssertEqual(try FTPAccount.parse("anna", environment: environment), FTPAccount(name: "anna", password: "one"))
        XCTAssertEqual(try FTPAccount.parse("ben:BEN_PW", environment: environment), FTPAccount(name: "ben", password: "two"))
        XCTAssertThrowsError(try FTPAccount.parse("cy:EMPTY", environment: environment)) {
            XCTAssertEqual($0 as? FTPReceiverError, .missingPassword(user: "cy", variable: "EMPTY"))
        }
        XCTAssertThrowsError(try FTPAccount.parse("anna", environment: [:]))
        for bad in ["", "..", ".hidden", "a/b", "a b", String(repeating: "x", count: 65)] {
            XCTAssertThrowsError(try FTPAccount.parse(bad, environment: environment), bad)
        }
    }

    func testPasswordsAreComparedWhole() {
        let account = FTPAccount(name: "anna", password: "secret")
        XCTAssertTrue(account.accepts("secret"))
        for guess in ["", "secre", "secrets", "Secret", "secret\u{0}"] { XCTAssertFalse(account.accepts(guess), guess) }
    }

    func testListenAddresses() throws {
        XCTAssertTrue(try FTPReceiverOptions.parseListenAddress("2121") == ("0.0.0.0", 2121))
        XCTAssertTrue(try FTPReceiverOptions.parseListenAddress("192.168.1.10:21") == ("192.168.1.10", 21))
        XCTAssertTrue(try FTPReceiverOptions.parseListenAddress("[::1]:2121") == ("::1", 2121))
        for bad in ["", "x", "host:", ":21", "1.2.3.4:70000", "[::1]2121"] {
            XCTAssertThrowsError(try FTPReceiverOptions.parseListenAddress(bad), bad)
        }
    }

    func testPeerHostsAsSocketIOWritesThem() {
        XCTAssertEqual(FTPPeer.host(of: "192.168.1.20:50123"), "192.168.1.20")
        XCTAssertEqual(FTPPeer.host(of: "[fe80::1]:21"), "fe80::1")
        XCTAssertEqual(FTPPeer.host(of: "[::ffff:10.0.0.5]:21"), "10.0.0.5", "an IPv4 client on an IPv6 socket is its IPv4 address")
    }

    func testFailedLoginsSlowDownPerAddressUntilOneSucceeds() {
        let guardian = LoginGuard(firstDelay: 0.1, maxDelay: 5)
        let delays = (1...8).map { _ in guardian.failed(from: "10.0.0.9").delay }
        XCTAssertEqual(delays, [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5])
        XCTAssertEqual(guardian.failed(from: "10.0.0.8").count, 1, "another address starts afresh")
        guardian.succeeded(from: "10.0.0.9")
        XCTAssertEqual(guardian.failed(from: "10.0.0.9").count, 1)
    }

    func testStrangersGetAShortIdleLimitAndOneAddressAFewSessions() {
        var options = FTPReceiverOptions(accounts: [FTPAccount(name: "anna", password: "x")], maxSessions: 16, idleSeconds: 300)
        XCTAssertEqual(options.idleLimit(loggedIn: true), 300)
        XCTAssertEqual(options.idleLimit(loggedIn: false), 30, "a connection that has not logged in is let go sooner")
        options.idleSeconds = 2
        XCTAssertEqual(options.idleLimit(loggedIn: false), 2, "never later than the idle limit itself")

        let four = Array(repeating: "10.0.0.9", count: 4)
        XCTAssertNil(options.refusal(of: "10.0.0.9", openHosts: Array(four.dropFirst())))
        XCTAssertEqual(options.refusal(of: "10.0.0.9", openHosts: four), "4 sessions from 10.0.0.9 are open already")
        XCTAssertNil(options.refusal(of: "10.0.0.8", openHosts: four), "another address still gets in")
        XCTAssertEqual(options.refusal(of: "10.0.0.8", openHosts: four + (0..<12).map { "10.0.1.\($0)" }), "16 sessions are open already")
    }

    /// Issue 31: on the venue's network without TLS, relay says once that passwords cross it in
    /// the clear, and how to turn FTPS on.
    func testPlainFTPBeyondThisMachineIsSaidToBeInTheClear() {
        func warning(_ host: String, _ tls: FTPTLSMode) -> String? {
            FTPReceiverOptions(host: host, accounts: [FTPAccount(name: "anna", password: "x")], tls: tls).cleartextWarning
        }
        XCTAssertTrue(warning("0.0.0.0", .off)?.contains("in the clear") == true)
        XCTAssertTrue(warning("192.168.1.10", .off)?.contains("--ftp-tls required") == true)
        XCTAssertTrue(warning("0.0.0.0", .optional)?.contains("does not ask for TLS") == true)
        XCTAssertNil(warning("0.0.0.0", .required))
        XCTAssertNil(warning("127.0.0.1", .off), "nobody else can reach loopback")
        XCTAssertNil(warning("::1", .off))
    }
}
