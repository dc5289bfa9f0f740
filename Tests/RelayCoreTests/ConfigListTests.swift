import Foundation
import RelayCore
import XCTest

final class ConfigListTests: XCTestCase {
    func testUpsertTrimsAndInsertsAtFront() {
        var list = ConfigList()
        let first = list.upsert(RequestConfig(url: "  https://a.example/up  ", note: " one "))
        let second = list.upsert(RequestConfig(url: "https://b.example/up"))
        XCTAssertEqual(first.url, "https://a.example/up")
        XCTAssertEqual(first.note, "one")
        XCTAssertEqual(list.configs.map(\.id), [second.id, first.id])
    }

    func testUpsertOfSameVerbURLAndNoteMovesItToFrontAndKeepsID() {
        var list = ConfigList()
        let original = list.upsert(RequestConfig(url: "https://a.example/up", note: "gallery"))
        list.upsert(RequestConfig(url: "https://b.example/up"))
        let again = list.upsert(RequestConfig(url: " https://a.example/up", note: "gallery ", headers: ["X-Event": "42"]))
        XCTAssertEqual(again.id, original.id)
        XCTAssertEqual(list.configs.count, 2)
        XCTAssertEqual(list.configs.first?.id, original.id)
        XCTAssertEqual(list.configs.first?.headers, ["X-Event": "42"])
    }

    func testReimportingAnEditedConfigKeepsIdsUnique() {
        var list = ConfigList()
        let original = list.upsert(RequestConfig(url: "https://a.example/up", note: "gala"))
        var edited = original
        edited.url = "https://b.example/up"
        list.upsert(edited)
        XCTAssertEqual(list.configs.count, 1)
        XCTAssertEqual(list.configs.first?.url, "https://b.example/up")
    }

    func testDifferentVerbIsADifferentConfig() {
        var list = ConfigList()
        list.upsert(RequestConfig(verb: .POST, url: "https://a.example/up"))
        list.upsert(RequestConfig(verb: .PUT, url: "https://a.example/up"))
        XCTAssertEqual(list.configs.count, 2)
    }

    func testSelectRemoveAndFind() throws {
        var list = ConfigList()
        let a = list.upsert(RequestConfig(url: "https://a.example/up", note: "Wedding"))
        let b = list.upsert(RequestConfig(url: "https://b.example/up"))
        try list.select(a.id)
        XCTAssertEqual(list.selected?.id, a.id)
        XCTAssertEqual(try list.find("wedding").id, a.id)
        XCTAssertEqual(try list.find(String(b.id.uuidString.prefix(8)).lowercased()).id, b.id)
        XCTAssertThrowsError(try list.find("nothing")) { error in
            XCTAssertEqual(error as? ConfigError, .notFound("nothing"))
        }
        try list.remove(a.id)
        XCTAssertEqual(list.selected?.id, b.id, "removing the selected config selects the next one")
    }

    func testValidationNamesTheFieldAndTheFix() {
        func message(_ config: RequestConfig) -> String {
            do {
                _ = try config.validateCommon()
                return ""
            } catch {
                return error.description
            }
        }
        XCTAssertTrue(message(RequestConfig(url: "", note: "gallery")).contains("config 'gallery' has no URL: relay config add --url"))
        XCTAssertTrue(message(RequestConfig(url: "not a url")).contains("url 'not a url'"))
        XCTAssertTrue(message(RequestConfig(url: "https://x.example", headers: ["Bad Name": "x"])).contains("header 'Bad Name'"))
        XCTAssertTrue(message(RequestConfig(url: "https://x.example", timeoutSeconds: -1)).contains("timeoutSeconds"))
        XCTAssertTrue(message(RequestConfig(url: "https://x.example/{nmae}")).contains("{nmae} is not a placeholder"))
        XCTAssertEqual(message(RequestConfig(url: "https://x.example/api/{date}/{name}")), "")
    }

    /// Camera2URL's own configs decode; the fields of a destination kind are kept as written,
    /// in any JSON shape, and written back unchanged.
    func testDecodingAcceptsCamera2URLConfigsAndKeepsTheKindsFields() throws {
        let camera2url = #"{"id":"5B1E3D5A-33B4-4E35-9E4C-6E0D3B8F1A22","verb":"post","url":"https://x.example/u","note":"n"}"#
        let config = try JSONCoding.decoder.decode(RequestConfig.self, from: Data(camera2url.utf8))
        XCTAssertEqual(config.verb, .POST)
        XCTAssertEqual(config.options, [:])
        let bad = #"{"verb":"SEND","url":"https://x.example/u"}"#
        XCTAssertThrowsError(try JSONCoding.decoder.decode(RequestConfig.self, from: Data(bad.utf8))) { error in
            XCTAssertTrue(JSONCoding.explain(error).contains("verb 'SEND' is not one of"))
        }
        let withOptions = #"{"url":"s3://b/x","endpoint":"http://h:1","fields":{"a":"1"},"n":2.5,"on":true,"list":[null]}"#
        let decoded = try JSONCoding.decoder.decode(RequestConfig.self, from: Data(withOptions.utf8))
        XCTAssertEqual(decoded.options["endpoint"], "http://h:1")
        XCTAssertEqual(decoded.options["fields"]?.textPairs, ["a": "1"])
        XCTAssertEqual(decoded.options["n"], .number(2.5))
        XCTAssertEqual(decoded.options["on"], .bool(true))
        XCTAssertEqual(decoded.options["list"], .array([.null]))
        let again = try JSONCoding.decoder.decode(RequestConfig.self, from: try JSONCoding.encoder.encode(decoded))
        XCTAssertEqual(again, decoded)
    }

    func testEnvironmentExpansion() throws {
        XCTAssertEqual(
            try EnvironmentExpansion.expand("Bearer ${TOKEN}", header: "Authorization", environment: ["TOKEN": "abc"]), "Bearer abc")
        XCTAssertEqual(try EnvironmentExpansion.expand("$5 ${A}${B}", header: "X", environment: ["A": "1", "B": "2"]), "$5 12")
        XCTAssertThrowsError(try EnvironmentExpansion.expand("Bearer ${MISSING}", header: "Authorization", environment: [:])) { error in
            XCTAssertEqual(error as? ConfigError, .unknownEnvironmentVariable(name: "MISSING", header: "Authorization"))
            XCTAssertTrue((error as? ConfigError)?.description.contains("export MISSING=") ?? false)
        }
    }

    func testShownConfigsHideSecretValuesButNotEnvironmentReferences() {
        let config = RequestConfig(
            url: "https://a.example/up",
            headers: [
                "Authorization": "Bearer ${GALLERY_TOKEN}", "X-Api-Key": "abc123", "Cookie": "session=${S} extra 42",
                "X-Event": "gala", "X-Token": "${T}",
            ])
        let shown = config.redactingSecrets().headers
        XCTAssertEqual(shown["Authorization"], "Bearer ${GALLERY_TOKEN}", "a reference holds no secret and says which variable is used")
        XCTAssertEqual(shown["X-Token"], "${T}")
        XCTAssertEqual(shown["X-Api-Key"], "<redacted>")
        XCTAssertEqual(shown["Cookie"], "<redacted>")
        XCTAssertEqual(shown["X-Event"], "gala")
        XCTAssertEqual(ConfigList(configs: [config]).mapConfigs { $0.redactingSecrets() }.configs.first?.headers["X-Api-Key"], "<redacted>")
        let withPassword = RequestConfig(url: "ftp://u@h/", options: ["password": "hunter2", "sshKey": "k"])
        XCTAssertEqual(withPassword.redactingSecrets(options: ["password"]).options, ["password": "<redacted>", "sshKey": "k"])
        let referenced = RequestConfig(url: "ftp://u@h/", options: ["password": "${FTP_PASSWORD}"])
        XCTAssertEqual(referenced.redactingSecrets(options: ["password"]), referenced)
    }
}
