import Foundation
import HTTPInbox
import XCTest

/// The inbox's rules without a socket: routes, names, what a body is, logins.
final class InboxRequestRulesTests: XCTestCase {
    func testOnlyPostUploadAndPutUploadNameAreServed() throws {
        XCTAssertEqual(try InboxRequestRules.shape(method: "POST", path: "/upload"), .multipart)
        XCTAssertEqual(try InboxRequestRules.shape(method: "PUT", path: "/upload/IMG_0001.JPG"), .bare(name: "IMG_0001.JPG"))
        for (method, path, status) in [
            ("GET", "/upload", 405), ("PUT", "/upload", 405), ("POST", "/upload/IMG.JPG", 405), ("POST", "/", 404),
            ("PUT", "/upload/a/b.jpg", 400), ("PUT", "/upload/../x.jpg", 400), ("PUT", "/upload/.hidden.jpg", 400),
            ("PUT", "/upload/C:\\fake\\x.jpg", 400), ("PUT", "/upload/", 405),
        ] {
            XCTAssertThrowsError(try InboxRequestRules.shape(method: method, path: path), "\(method) \(path)") { error in
                XCTAssertEqual((error as? InboxRefusal)?.status, status, "\(method) \(path)")
            }
        }
    }

    func testWhatABodyIsComesFromItsBytes() throws {
        XCTAssertEqual(InboxRequestRules.kind(of: [0xFF, 0xD8, 0xFF, 0xE1] + Array(repeating: 0, count: 12)), .jpeg)
        XCTAssertEqual(InboxRequestRules.kind(of: [0x49, 0x49, 0x2A, 0x00] + Array(repeating: 0, count: 12)), .raw)
        XCTAssertEqual(InboxRequestRules.kind(of: [0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 0]), .raw)
        XCTAssertEqual(InboxRequestRules.kind(of: Array("<html><body>hello</body>".utf8)), .other)
        XCTAssertEqual(try InboxRequestRules.accept(.jpeg, name: "photo-1700000000.jpg", includeRAW: false), .jpeg)
        XCTAssertThrowsError(try InboxRequestRules.accept(.raw, name: "IMG_1.CR3", includeRAW: false)) { error in
            XCTAssertEqual((error as? InboxRefusal)?.status, 415)
        }
        XCTAssertEqual(try InboxRequestRules.accept(.raw, name: "IMG_1.CR3", includeRAW: true), .raw)
        XCTAssertThrowsError(try InboxRequestRules.accept(.other, name: "notes.txt", includeRAW: true))
        XCTAssertEqual(InboxRequestRules.spoolName("IMG_1.JPG", kind: .jpeg), "IMG_1.JPG")
        XCTAssertEqual(InboxRequestRules.spoolName("upload", kind: .jpeg), "upload.jpg")
    }

    func testATokenNamesItsLoginAndNothingElseDoes() throws {
        let logins = [
            HTTPInboxLogin(name: "anna", token: "anna-token-0123456789"), HTTPInboxLogin(name: "ben", token: "ben-token-0123456789"),
        ]
        XCTAssertEqual(HTTPInboxAuthorization.login(for: "Bearer ben-token-0123456789", among: logins)?.name, "ben")
        let basic = "Basic " + Data("anna:anna-token-0123456789".utf8).base64EncodedString()
        XCTAssertEqual(HTTPInboxAuthorization.login(for: basic, among: logins)?.name, "anna")
        let crossed = "Basic " + Data("anna:ben-token-0123456789".utf8).base64EncodedString()
        for header in [nil, "", "Bearer", "Bearer anna-token-012345678", crossed, "Token anna-token-0123456789", "Basic !!!"] {
            XCTAssertNil(HTTPInboxAuthorization.login(for: header, among: logins), header ?? "no header")
        }
    }

    func testALoginsTokenComesFromTheEnvironmentAndIsLongEnough() throws {
        XCTAssertEqual(
            try HTTPInboxLogin.parse("anna:ANNA_TOKEN", environment: ["ANNA_TOKEN": "0123456789abcdef"]),
            HTTPInboxLogin(name: "anna", token: "0123456789abcdef"))
        XCTAssertEqual(try HTTPInboxLogin.parse("ben", environment: ["RELAY_HTTP_TOKEN": "0123456789abcdefg"]).name, "ben")
        XCTAssertThrowsError(try HTTPInboxLogin.parse("anna:ANNA_TOKEN", environment: [:]))
        XCTAssertThrowsError(try HTTPInboxLogin.parse("anna:ANNA_TOKEN", environment: ["ANNA_TOKEN": "short"]))
        XCTAssertThrowsError(try HTTPInboxLogin.parse("../anna", environment: ["RELAY_HTTP_TOKEN": "0123456789abcdef"]))
    }

    func testAnIdempotencyKeyIsPrintableAndShort() throws {
        XCTAssertEqual(try InboxRequestRules.idempotencyKey(" 3f2a-11 "), "3f2a-11")
        XCTAssertNil(try InboxRequestRules.idempotencyKey(nil))
        XCTAssertThrowsError(try InboxRequestRules.idempotencyKey("a b"))
        XCTAssertThrowsError(try InboxRequestRules.idempotencyKey(String(repeating: "k", count: 201)))
    }
}
