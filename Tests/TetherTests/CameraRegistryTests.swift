import Foundation
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
        XCTAssertTrue(try registry.noteConnected(serial: "A1", manufacturer: "Canon", model: "R5", address: "10.0.0.3",
                                                 at: early.addingTimeInterval(60)))
        try registry.noteConnected(serial: "B2", manufacturer: "Nikon", model: "Z6", address: "10.0.0.4", at: early.addingTimeInterval(30))
        try registry.noteExistingPhotosRecorded(serial: "A1")

        let reopened = try CameraRegistry(home: home)
        XCTAssertEqual(reopened.knownSerials, ["A1", "B2"], "most recently connected first")
        let camera = try XCTUnwrap(reopened.camera(serial: "A1"))
        XCTAssertEqual(camera.lastAddress, "10.0.0.3")
        XCTAssertEqual(camera.firstConnected, early)
        XCTAssertTrue(camera.existingPhotosRecorded)
        XCTAssertFalse(try XCTUnwrap(reopened.camera(serial: "B2")).existingPhotosRecorded)
    }

    func testAFileThatDoesNotParseIsReportedAndLeftAlone() throws {
        for broken in ["{\"clientGUID\": \"12", "{\"clientGUID\": \"not hex\", \"cameras\": {}}", "[]"] {
            try Data(broken.utf8).write(to: home.camerasFile)
            XCTAssertThrowsError(try CameraRegistry(home: home), broken) { error in
                guard case StateFileError.corrupt(let path, _) = error else { return XCTFail("\(error)") }
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
}
