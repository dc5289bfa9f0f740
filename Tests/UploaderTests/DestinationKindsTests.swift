import Foundation
import RelayCore
import XCTest

@testable import Uploader

/// The registry of destination kinds: a config's scheme picks its kind, and the kind's fields are
/// checked, refused for other kinds, shown with secrets redacted and read into its settings value.
final class DestinationKindsTests: XCTestCase {
    private func message(_ config: RequestConfig) -> String {
        do {
            try Destinations.validate(config)
            return ""
        } catch {
            return error.description
        }
    }

    func testTheSchemePicksTheKindAndUnknownSchemesNameTheKnownOnes() throws {
        XCTAssertTrue(try Destinations.kind(of: RequestConfig(url: "HTTPS://x.example/u")) == HTTPDestination.self)
        XCTAssertTrue(try Destinations.kind(of: RequestConfig(url: "s3://bucket/x")) == S3Destination.self)
        XCTAssertTrue(try Destinations.kind(of: RequestConfig(url: "sftp://u@h/x")) == FileTransferDestination.self)
        XCTAssertTrue(try Destinations.kind(of: RequestConfig(url: "dav://h/x")) == WebDAVDestination.self)
        XCTAssertTrue(try Destinations.kind(of: RequestConfig(url: "wps://u@h/")) == WordPressDestination.self)
        XCTAssertTrue(
            message(RequestConfig(url: "gopher://x.example/")).contains(
                "only http, https, s3, ftp, ftps, sftp, dav, davs, wp, wps, immich and immichs URLs")
        )
        XCTAssertEqual(Destinations.schemes.count, Set(Destinations.schemes).count, "a scheme belongs to one kind")
        XCTAssertEqual(message(RequestConfig(url: "https://x.example/up")), "")
    }

    /// A field of another kind is refused with the kind it is for; a field of no kind with the
    /// fields this kind has (a misspelt field would otherwise be lost without a word).
    func testFieldsBelongToTheirKind() {
        XCTAssertTrue(
            message(RequestConfig(url: "https://x.example/up", options: ["region": "us-east-1"])).contains("region is for s3:// URLs"))
        XCTAssertTrue(
            message(RequestConfig(url: "s3://photos/x", options: ["fields": ["album": "a"]])).contains(
                "fields is for http://, https:// URLs"))
        XCTAssertTrue(message(RequestConfig(url: "dav://h/x", options: ["sshKey": "/k"])).contains("sshKey is for sftp:// URLs"))
        let typo = message(RequestConfig(url: "https://x.example/up", options: ["colour": "red"]))
        XCTAssertTrue(typo.contains("unknown field 'colour'") && typo.contains("fileField"), typo)
        XCTAssertTrue(
            message(RequestConfig(url: "ftp://h/x", options: ["caCertificate": "/c.pem"])).contains("caCertificate is for ftps://"))
        XCTAssertTrue(message(RequestConfig(url: "ftp://h/x", options: ["sshKey": "/k"])).contains("sshKey is for sftp:// URLs"))
    }

    /// Each field's form is checked the same way whatever its kind.
    func testEachFieldHasItsForm() {
        XCTAssertTrue(message(RequestConfig(url: "https://x.example/up", options: ["body": "json"])).contains("body is multipart or raw"))
        XCTAssertTrue(
            message(RequestConfig(url: "https://x.example/up", options: ["body": .number(1)])).contains("body is text, not a number"))
        XCTAssertTrue(message(RequestConfig(url: "https://x.example/up", options: ["fields": "album=a"])).contains("fields is an object"))
        XCTAssertTrue(
            message(RequestConfig(url: "https://x.example/up", options: ["fields": ["": "a"]])).contains("field name cannot be empty"))
        XCTAssertTrue(message(RequestConfig(url: "https://x.example/up", options: ["fileField": "a\"b"])).contains("quotes"))
        XCTAssertTrue(
            message(RequestConfig(url: "https://x.example/up", options: ["fields": ["exp": "{exposre}"]])).contains(
                "{exposre} is not a placeholder"), "a misspelt placeholder in a field's value")
        XCTAssertEqual(
            message(RequestConfig(url: "https://x.example/up", options: ["fields": ["exp": "{exposure} s{set}", "m": "{\"a\":1}"]])), "")
        XCTAssertTrue(
            message(RequestConfig(url: "https://x.example/up", options: ["manifestUrl": "ftp://h/m"])).contains("http:// or https://"))
        XCTAssertTrue(message(RequestConfig(url: "ftp://u@h/x", options: ["password": "hunter2"])).contains("${NAME} reference"))
        XCTAssertEqual(message(RequestConfig(url: "ftp://u@h/x", options: ["password": "${FTP_PASSWORD}"])), "")
        XCTAssertTrue(message(RequestConfig(url: "sftp://h/x")).contains("names the user"))
    }

    func testS3Rules() {
        XCTAssertEqual(
            message(
                RequestConfig(url: "s3://photos/gala/{date}/{name}", options: ["endpoint": "http://127.0.0.1:8333", "region": "eu-west-1"])),
            "")
        XCTAssertEqual(message(RequestConfig(url: "s3://photos", options: ["addressing": "virtual"])), "")
        XCTAssertTrue(message(RequestConfig(url: "s3://Photos_Bucket/x")).contains("not a bucket name"))
        XCTAssertTrue(message(RequestConfig(url: "s3://photos/x", options: ["endpoint": "ftp://h"])).contains("http:// or https://"))
        XCTAssertTrue(message(RequestConfig(url: "s3://photos/x", options: ["endpoint": "http://h/path"])).contains("S3 endpoint"))
        XCTAssertTrue(message(RequestConfig(url: "s3://photos/x", options: ["region": "eu west"])).contains("S3 region"))
    }

    /// `relay config show` hides a secret field written as the secret itself, not a reference.
    func testShownConfigsRedactTheKindsSecretFields() {
        let written = RequestConfig(url: "ftp://u@h/x", headers: ["X-Api-Key": "k1"], options: ["password": "hunter2", "sshKey": "/k"])
        XCTAssertEqual(Destinations.shown(written).options, ["password": "<redacted>", "sshKey": "/k"])
        XCTAssertEqual(Destinations.shown(written).headers["X-Api-Key"], "<redacted>")
        let referenced = RequestConfig(url: "dav://u@h/x", options: ["password": "${DAV_PASSWORD}"])
        XCTAssertEqual(Destinations.shown(referenced), referenced)
    }

    /// The options `relay config add` offers come from the kinds' fields, each once, with the
    /// schemes that have it.
    func testEveryFieldHasOneOptionNamingItsSchemes() {
        let fields = Destinations.fields
        XCTAssertEqual(fields.count, Set(fields.map(\.field.option)).count)
        let password = fields.first { $0.field.name == "password" }
        XCTAssertEqual(password?.schemes, ["ftp", "ftps", "sftp", "dav", "davs", "wp", "wps"])
        for kind in Destinations.kinds {
            for field in kind.fields {
                XCTAssertTrue(field.option.hasPrefix("--"), field.option)
                XCTAssertFalse(
                    RequestConfig.CommonField.allCases.map(\.stringValue).contains(field.name), "\(field.name) is a common field")
            }
        }
    }

    func testSettingsAreReadFromTheConfigsFields() {
        let http = HTTPSettings(RequestConfig(url: "https://x.example/u"))
        XCTAssertEqual(http.fileField, "file")
        XCTAssertEqual(http.body, .multipart)
        XCTAssertEqual(http.fields, [:])
        let raw = HTTPSettings(
            RequestConfig(url: "https://x.example/u", options: ["body": "raw", "fields": ["a": "1"], "fileField": "photo"]))
        XCTAssertEqual(raw.body, .raw)
        XCTAssertEqual(raw.fields, ["a": "1"])
        XCTAssertEqual(raw.fileField, "photo")
    }

    /// The example file imports whole, with one config of each kind it shows.
    func testExampleConfigImports() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let imported = try ConfigImport.read(url.appendingPathComponent("config.example.json"), validate: Destinations.validate)
        XCTAssertFalse(imported.configs.isEmpty)
        XCTAssertTrue(imported.configs.contains { HTTPSettings($0).body == .raw })
        XCTAssertTrue(imported.configs.contains { !$0.headers.isEmpty && !HTTPSettings($0).fields.isEmpty })
        XCTAssertEqual(Set(imported.configs.map(\.scheme)), ["http", "https", "s3", "ftps", "sftp"])
    }
}
