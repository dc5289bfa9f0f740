import FTPWire
import XCTest

final class FTPCommandParserTests: XCTestCase {
    private func parse(_ text: String) throws -> FTPCommand {
        try FTPCommand(parsing: Array(text.utf8))
    }

    func testVerbsAreCaseInsensitiveAndArgumentsKeptAsSent() throws {
        XCTAssertEqual(try parse("user alice"), .user("alice"))
        XCTAssertEqual(try parse("STOR IMG 0001 .JPG "), .stor("IMG 0001 .JPG "), "spaces inside and at the end of a name are kept")
        XCTAssertEqual(try parse("PASS"), .pass(""), "an empty password is a password")
        XCTAssertEqual(try parse("XPWD"), .pwd)
        XCTAssertEqual(try parse("CDUP\r\n"), .cdup)
        XCTAssertEqual(try parse("OPTS utf8 on"), .opts(name: "UTF8", value: "on"))
        XCTAssertEqual(try parse("LIST -la"), .list("-la"))
        XCTAssertEqual(try parse("NLST"), .nlst(nil))
        XCTAssertEqual(try parse("SITE CHMOD 644 x"), .unknown("SITE"))
    }

    func testTypesModesAndRestart() throws {
        XCTAssertEqual(try parse("TYPE I"), .type(.image))
        XCTAssertEqual(try parse("TYPE L 8"), .type(.image))
        XCTAssertEqual(try parse("TYPE A N"), .type(.ascii))
        XCTAssertThrowsError(try parse("TYPE E")) { XCTAssertEqual(($0 as? FTPParseError)?.replyCode, 501) }
        XCTAssertEqual(try parse("REST 1048576"), .rest(1_048_576))
        XCTAssertThrowsError(try parse("REST -5"))
        XCTAssertThrowsError(try parse("REST abc"))
        XCTAssertEqual(try parse("EPSV"), .epsv(.any))
        XCTAssertEqual(try parse("EPSV ALL"), .epsv(.all))
        XCTAssertEqual(try parse("EPSV 2"), .epsv(.networkProtocol(2)))
        XCTAssertThrowsError(try parse("EPSV 3"))
        XCTAssertEqual(try parse("AUTH tls"), .auth("TLS"))
        XCTAssertEqual(try parse("PBSZ 0"), .pbsz(0))
    }

    func testAddressesOfPortAndEprt() throws {
        XCTAssertEqual(try parse("PORT 192,168,1,20,4,1"), .port(FTPHostPort(host: "192.168.1.20", port: 1025)))
        XCTAssertEqual(try parse("EPRT |1|10.0.0.5|6275|"), .eprt(FTPHostPort(host: "10.0.0.5", port: 6275)))
        XCTAssertEqual(try parse("EPRT |2|::1|6275|"), .eprt(FTPHostPort(host: "::1", port: 6275)))
        for bad in [
            "PORT 1,2,3,4,5", "PORT 1,2,3,256,0,1", "PORT 1,2,3,4,0,0", "EPRT |3|x|1|", "EPRT |1|::1|5|", "EPRT |1|1.2.3.4|0|", "PORT",
        ] {
            XCTAssertThrowsError(try parse(bad), bad)
        }
        XCTAssertEqual(FTPHostPort(host: "127.0.0.1", port: 50_000).portArgument, "127,0,0,1,195,80")
        XCTAssertNil(FTPHostPort(host: "::1", port: 1).portArgument)
        XCTAssertEqual(FTPHostPort(host: "::1", port: 7).eprtArgument, "|2|::1|7|")
    }

    func testMalformedLinesAreErrorsNotCrashes() {
        XCTAssertThrowsError(try parse("")) { XCTAssertEqual($0 as? FTPParseError, .notACommand) }
        XCTAssertThrowsError(try parse("ST0R x")) { XCTAssertEqual($0 as? FTPParseError, .notACommand) }
        XCTAssertThrowsError(try parse("STOREX x")) { XCTAssertEqual($0 as? FTPParseError, .notACommand) }
        XCTAssertThrowsError(try parse("STOR")) { XCTAssertEqual($0 as? FTPParseError, .missingArgument(verb: "STOR")) }
        XCTAssertThrowsError(try FTPCommand(parsing: [0x53, 0x54, 0x4F, 0x52, 0x20, 0xFF, 0xFE])) {
            XCTAssertEqual($0 as? FTPParseError, .notUTF8)
        }
        XCTAssertThrowsError(try parse("STOR a\u{0}b"))
        // Found by the fuzzer: an argument of spaces only.
        XCTAssertThrowsError(try parse("OPTS  ")) { XCTAssertEqual($0 as? FTPParseError, .missingArgument(verb: "OPTS")) }
        XCTAssertThrowsError(try parse("AUTH  "))
    }

    func testARestartOffsetOutlivesOnlyItsTransferAndItsSetup() throws {
        for text in ["STOR a.jpg", "APPE a.jpg", "PASV", "EPSV", "PORT 127,0,0,1,4,1", "EPRT |1|127.0.0.1|1025|", "TYPE I"] {
            XCTAssertTrue(try parse(text).keepsRestartOffset, text)
        }
        for text in ["REST 100", "SIZE a.jpg", "CWD /b", "NOOP", "LIST", "DELE a.jpg", "RNFR a.jpg", "ABOR", "USER x", "MKD d"] {
            XCTAssertFalse(try parse(text).keepsRestartOffset, "\(text) must end a pending REST")
        }
    }

    func testTelnetInterruptBeforeAborIsDropped() throws {
        // IAC IP IAC DM, then ABOR (RFC 959 section 4.1.3).
        XCTAssertEqual(try FTPCommand(parsing: [0xFF, 0xF4, 0xFF, 0xF2] + Array("ABOR".utf8)), .abor)
        // lftp's sequence once the urgent IAC went out of band, and a lone Data Mark.
        XCTAssertEqual(try FTPCommand(parsing: [0xF4, 0xFF, 0xF2] + Array("ABOR".utf8)), .abor)
        XCTAssertEqual(try FTPCommand(parsing: [0xFF, 0xF4, 0xF2] + Array("ABOR\r".utf8)), .abor)
        XCTAssertEqual(try FTPCommand(parsing: [0xF2] + Array("ABOR".utf8)), .abor)
        XCTAssertThrowsError(try FTPCommand(parsing: [0xFF, 0xF4])) { XCTAssertEqual($0 as? FTPParseError, .notACommand) }
    }

    func testLineReaderSplitsOnLineEndsAndRefusesEndlessLines() throws {
        var reader = FTPLineReader(maxLineLength: 16)
        reader.append(Array("USER a\r\nPA".utf8))
        XCTAssertEqual(try reader.nextLine(), Array("USER a".utf8))
        XCTAssertNil(try reader.nextLine())
        reader.append(Array("SS b\nNOOP\r\n".utf8))
        XCTAssertEqual(try reader.nextLine(), Array("PASS b".utf8))
        XCTAssertEqual(try reader.nextLine(), Array("NOOP".utf8))
        XCTAssertNil(try reader.nextLine())
        reader.append([UInt8](repeating: 0x41, count: 40))
        XCTAssertThrowsError(try reader.nextLine())
    }
}
