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

    func testCorruptHistoryIsReportedAndLeftByteForByte() throws {
        let garbage = Data("[1, 2, ".utf8)
        try garbage.write(to: home.historyFile)
        XCTAssertThrowsError(try HistoryStore(home: home)) { error in
            XCTAssertEqual((error as? StateFileError)?.path, self.home.historyFile.path)
        }
        XCTAssertEqual(try Data(contentsOf: home.historyFile), garbage)
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
