import Foundation
import RelayCore
import XCTest

final class StateFileTests: XCTestCase {
    private var home: RelayHome!

    override func setUpWithError() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("relaycore-\(UUID().uuidString)")
        home = RelayHome(root: root)
        try home.createIfNeeded()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: home.root)
    }

    func testHomeResolution() {
        XCTAssertEqual(RelayHome.resolve(environment: ["RELAY_HOME": "/x/y", "XDG_STATE_HOME": "/s"]).root.path, "/x/y")
        XCTAssertEqual(RelayHome.resolve(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).root.path, "/s/relay")
        XCTAssertEqual(RelayHome.resolve(environment: ["HOME": "/h"]).root.path, "/h/.local/state/relay")
    }

    func testSaveIsPrivateAndRoundTrips() throws {
        let store = ConfigStore(home: home)
        try store.update { (list: inout ConfigList) throws(ConfigError) in
            let stored = list.upsert(RequestConfig(url: "https://x.example/u", headers: ["Authorization": "Bearer ${T}"]))
            try list.select(stored.id)
        }
        let loaded = try store.load()
        XCTAssertEqual(loaded.configs.count, 1)
        XCTAssertEqual(loaded.selected?.headers["Authorization"], "Bearer ${T}")
        let mode = try FileManager.default.attributesOfItem(atPath: home.configsFile.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.root.path).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testCorruptConfigsFileIsReportedAndLeftByteForByte() throws {
        let garbage = Data("{\"configs\": [ {\"url\": \"https://x\"".utf8)
        try garbage.write(to: home.configsFile)
        let store = ConfigStore(home: home)
        XCTAssertThrowsError(
            try store.update { (list: inout ConfigList) throws(ConfigError) in
                list.upsert(RequestConfig(url: "https://y.example/u"))
            }
        ) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains(self.home.configsFile.path), message)
            XCTAssertTrue(message.contains("left unchanged"), message)
        }
        XCTAssertEqual(try Data(contentsOf: home.configsFile), garbage)
    }

    /// A damaged configs.json is refused, untouched, with the command that restores the last
    /// copy that was good (kept beside it at every save and every read that parsed).
    func testCorruptConfigsFileNamesItsLastGoodCopy() throws {
        let store = ConfigStore(home: home)
        try store.update { (list: inout ConfigList) throws(ConfigError) in
            _ = list.upsert(RequestConfig(url: "https://good.example/u", note: "good"))
        }
        let good = try Data(contentsOf: home.configsFile)
        let copy = home.configsFile.appendingPathExtension("last-good")
        XCTAssertEqual(try Data(contentsOf: copy), good, "saved beside it")
        let torn = good.prefix(good.count / 2)
        try torn.write(to: home.configsFile)
        XCTAssertThrowsError(try store.load()) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("left unchanged"), message)
            XCTAssertTrue(message.contains("cp '\(copy.path)' '\(self.home.configsFile.path)' restores it"), message)
        }
        XCTAssertEqual(try Data(contentsOf: home.configsFile), torn, "never replaced")
        XCTAssertEqual(try Data(contentsOf: copy), good, "the good copy is kept")
        try FileManager.default.removeItem(at: home.configsFile)
        try FileManager.default.copyItem(at: copy, to: home.configsFile)
        XCTAssertEqual(try store.load().configs.map(\.note), ["good"], "the restore the message gives works")
    }

    /// A configs.json edited by hand is the last good copy once relay has read it.
    func testAHandEditedConfigsFileBecomesTheLastGoodCopyWhenRead() throws {
        let edited = Data(#"{"configs":[{"url":"https://hand.example/u","note":"by hand"}]}"#.utf8)
        try edited.write(to: home.configsFile)
        XCTAssertEqual(try ConfigStore(home: home).load().configs.map(\.note), ["by hand"])
        XCTAssertEqual(try Data(contentsOf: home.configsFile.appendingPathExtension("last-good")), edited)
        try Data("{".utf8).write(to: home.configsFile.appendingPathExtension("last-good"))
        try Data("".utf8).write(to: home.configsFile)
        XCTAssertThrowsError(try ConfigStore(home: home).load()) { error in
            XCTAssertTrue("\(error)".contains("move it away to start from an empty one"), "a damaged copy is not offered: \(error)")
        }
    }

    /// The history is only a log: a torn one (a power cut, an emptied file) is moved aside byte
    /// for byte, said once, and a new one begun, so that it never stops a run.
    func testATornHistoryIsMovedAsideAndANewOneBegun() throws {
        for garbage in [Data("[1, 2, ".utf8), Data()] {
            try garbage.write(to: home.historyFile)
            let store = try HistoryStore(home: home)
            XCTAssertEqual(store.records, [])
            let aside = try XCTUnwrap(store.setAside)
            XCTAssertEqual(try Data(contentsOf: aside), garbage)
            XCTAssertTrue(aside.lastPathComponent.hasPrefix("history.json.unreadable-"), aside.path)
            XCTAssertTrue(store.setAsideNotice?.contains(aside.lastPathComponent) == true)
            XCTAssertFalse(FileManager.default.fileExists(atPath: home.historyFile.path))
            try store.append(
                HistoryRecord(
                    captureNumber: 1, timestamp: Date(), success: true, statusCode: 201, errorMessage: nil, requestSummary: "POST x",
                    responseSummary: nil, fileName: "A.JPG", bytes: 1, durationSeconds: 0.1, attempt: 1))
            let reopened = try HistoryStore(home: home)
            XCTAssertNil(reopened.setAside)
            XCTAssertEqual(reopened.records.map(\.fileName), ["A.JPG"])
            try FileManager.default.removeItem(at: aside)
        }
    }

    func testHistoryKeepsTheNewestHundredAcrossReopen() throws {
        let store = try HistoryStore(home: home)
        for number in 1...120 {
            try store.append(
                HistoryRecord(
                    captureNumber: number, timestamp: Date(), success: true, statusCode: 201, errorMessage: nil,
                    requestSummary: "POST x", responseSummary: nil, fileName: "IMG_\(number).JPG", bytes: 10,
                    durationSeconds: 0.1, attempt: 1))
        }
        let reopened = try HistoryStore(home: home).records
        XCTAssertEqual(reopened.count, 100)
        XCTAssertEqual(reopened.first?.captureNumber, 120)
        XCTAssertEqual(reopened.last?.captureNumber, 21)
    }

    func testImportValidatesEveryConfigBeforeSavingAny() throws {
        let file = home.root.appendingPathComponent("import.json")
        let common: (RequestConfig) throws(ConfigError) -> Void = { config throws(ConfigError) in _ = try config.validateCommon() }
        try Data(#"{"configs":[{"url":"https://ok.example/u"},{"url":"no url"}]}"#.utf8).write(to: file)
        XCTAssertThrowsError(try ConfigImport.read(file, validate: common)) { error in
            XCTAssertTrue("\(error)".contains("config #2"), "\(error)")
        }
        try Data(#"[{"url":"https://a.example/u","note":"a"},{"url":"https://b.example/u","verb":"PUT","body":"raw"}]"#.utf8).write(
            to: file)
        var list = ConfigList()
        XCTAssertEqual(try ConfigImport.merge(try ConfigImport.read(file, validate: common), into: &list), 2)
        XCTAssertEqual(list.configs.map(\.note), ["a", ""])
        XCTAssertEqual(list.selected?.note, "a")
        XCTAssertEqual(list.configs.last?.options["body"], "raw", "a kind's field is kept as written")
    }
}
