import Foundation
import PTPWire
import RelayCore
import Tether
import XCTest

final class CameraRegistryTests: XCTestCase {
    private var home: RelayHome!

    override func setUpWithError() throws {
        home = RelayHome(root: FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)"))
        try home.createIfNeeded()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: home.root)
    }

    func testTheClientGUIDIsMadeOnceAndKept() throws {
        let first = try CameraRegistry(home: home).clientGUID
        XCTAssertEqual(first.count, 16)
        XCTAssertEqual(try CameraRegistry(home: home).clientGUID, first, "a new GUID would make the camera ask to pair again")
        XCTAssertNotEqual(try CameraRegistry(home: RelayHome(root: home.root.appendingPathComponent("other"))).clientGUID, first)
    }

    func testCamerasAreRememberedBySerial() throws {
        let registry = try CameraRegistry(home: home)
        let early = Date(timeIntervalSince1970: 1_000)
        XCTAssertFalse(try registry.noteConnected(serial: "A1", manufacturer: "Canon", model: "R5", address: "10.0.0.2", at: early))
        XCTAssertTrue(
            try registry.noteConnected(
                serial: "A1", manufacturer: "Canon", model: "R5", address: "10.0.0.3",
                at: early.addingTimeInterval(60)))
        try registry.noteConnected(serial: "B2", manufacturer: "Nikon", model: "Z6", address: "10.0.0.4", at: early.addingTimeInterval(30))
        try registry.noteFirstListing(serial: "A1", ["1", "2"])
        try registry.noteFirstListing(serial: "B2", ["9"])
        try registry.noteConnected(serial: "B2", manufacturer: "Nikon", model: "Z6", address: "10.0.0.4", at: early.addingTimeInterval(30))
        try registry.noteExistingPhotosRecorded(serial: "A1")
        try registry.noteFirstListing(serial: "A1", ["3"])

        let reopened = try CameraRegistry(home: home)
        XCTAssertEqual(reopened.knownSerials, ["A1", "B2"], "most recently connected first")
        let camera = try XCTUnwrap(reopened.camera(serial: "A1"))
        XCTAssertEqual(camera.lastAddress, "10.0.0.3")
        XCTAssertEqual(camera.firstConnected, early)
        XCTAssertTrue(camera.existingPhotosRecorded)
        XCTAssertNil(camera.firstListing, "recorded: the first listing is no longer kept, nor taken again")
        XCTAssertEqual(reopened.camera(serial: "B2")?.firstListing, ["9"], "kept across a reconnect and a restart")
        XCTAssertFalse(try XCTUnwrap(reopened.camera(serial: "B2")).existingPhotosRecorded)
    }

    func testAFileThatDoesNotParseIsReportedAndLeftAlone() throws {
        for broken in ["{\"clientGUID\": \"12", "{\"clientGUID\": \"not hex\", \"cameras\": {}}", "[]"] {
            try Data(broken.utf8).write(to: home.camerasFile)
            XCTAssertThrowsError(try CameraRegistry(home: home), broken) { error in
                guard case StateFileError.corrupt(let path, _, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(path, home.camerasFile.path)
                XCTAssertTrue("\(error)".contains("left unchanged"))
            }
            XCTAssertEqual(try String(contentsOf: home.camerasFile, encoding: .utf8), broken)
        }
    }

    func testTheFileIsPrivate() throws {
        _ = try CameraRegistry(home: home)
        let mode = try FileManager.default.attributesOfItem(atPath: home.camerasFile.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
    }

    // MARK: - Pairings per address

    func testAFileFromBeforePairingsLoadsAndKeepsItsGUID() throws {
        let old = """
            {"cameras": {"A1": {"existingPhotosRecorded": true, "firstConnected": "2025-01-01T10:00:00.000Z",
              "lastAddress": "10.0.0.2:15740", "lastConnected": "2025-01-01T10:00:00.000Z", "manufacturer": "Canon", "model": "R5"}},
             "clientGUID": "00112233445566778899aabbccddeeff"}
            """
        try Data(old.utf8).write(to: home.camerasFile)
        let registry = try CameraRegistry(home: home)
        XCTAssertEqual(PTPIPGUID.hex(registry.clientGUID), "00112233445566778899aabbccddeeff")
        XCTAssertNil(registry.pairing(for: "10.0.0.2:15740"))
        XCTAssertTrue(try XCTUnwrap(registry.camera(serial: "A1")).existingPhotosRecorded)
    }

    func testAPairingIsKeptPerAddressAndSurvivesAnotherWriter() throws {
        let pairing = CameraRegistry.Pairing(
            guid: "ffeeddccbbaa99887766554433221100", name: "EOS Utility PC",
            model: "Z 8", serial: "300", paired: Date(timeIntervalSince1970: 5_000))
        let running = try CameraRegistry(home: home)
        try CameraRegistry(home: home).notePaired(address: "10.0.0.9:15740", pairing)
        try running.noteConnected(serial: "300", manufacturer: "Nikon", model: "Z 8", address: "10.0.0.9:15740")
        let reopened = try CameraRegistry(home: home)
        XCTAssertEqual(reopened.pairing(for: "10.0.0.9:15740"), pairing, "relay run's save must not drop what relay pair wrote")
        XCTAssertEqual(reopened.pairing(for: "10.0.0.9:15740")?.guidBytes?.first, 0xFF)
        XCTAssertNil(reopened.pairing(for: "10.0.0.10:15740"))
        XCTAssertNotNil(reopened.camera(serial: "300"))
        try running.reload()
        XCTAssertEqual(running.pairing(for: "10.0.0.9:15740")?.name, "EOS Utility PC")
    }

    func testAPairingWhoseGUIDIsNotHexIsReportedAndTheFileLeftAlone() throws {
        let broken = """
            {"cameras": {}, "clientGUID": "00112233445566778899aabbccddeeff", "pairings": {"10.0.0.9:15740": {"guid": "zz"}}}
            """
        try Data(broken.utf8).write(to: home.camerasFile)
        XCTAssertThrowsError(try CameraRegistry(home: home)) { error in
            XCTAssertTrue("\(error)".contains("pairings.10.0.0.9:15740.guid"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: home.camerasFile, encoding: .utf8), broken)
    }
}
