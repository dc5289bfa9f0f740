import Foundation
import PTPIP
import PTPWire
import RelayCore
import TestSupport
import XCTest

@testable import Tether

/// The battery and card reader: where each body keeps its battery, and the readings it takes
/// from the simulator over real sockets as the battery drains and the card fills.
final class CameraPowerTests: XCTestCase {
    private func info(_ vendor: PTPVendorExtension, operations: [PTPOperationCode], properties: [PTPDevicePropertyCode]) -> PTPDeviceInfo {
        PTPDeviceInfo(
            vendorExtensionID: vendor, operationsSupported: operations.map(\.rawValue),
            devicePropertiesSupported: properties.map(\.rawValue), manufacturer: "M", model: "M",
            deviceVersion: "1", serialNumber: "S")
    }

    func testTheBatteryIsReadWhereTheBodyKeepsIt() {
        XCTAssertEqual(CameraPower.batterySource(info(.nikon, operations: [.getDevicePropDesc], properties: [.batteryLevel])), .standard)
        XCTAssertEqual(CameraPower.batterySource(info(.mtp, operations: [.getDevicePropDesc], properties: [.sonyBatteryLevel])), .sony)
        XCTAssertEqual(CameraPower.batterySource(info(.canon, operations: [.canonEOSGetEvent], properties: [])), .canonEvents)
        XCTAssertEqual(
            CameraPower.batterySource(info(.microsoft, operations: [.getDevicePropDesc], properties: [])), .none,
            "a body that does not list BatteryLevel is not asked")
        XCTAssertEqual(
            CameraPower.batterySource(info(.microsoft, operations: [], properties: [.batteryLevel])), .none,
            "nor one that cannot describe its properties")
    }

    func testEventsAskForANewReadingOnlyForTheBatteryAndTheCard() {
        var signals = CameraPowerSignals()
        signals.note(.devicePropChanged, parameter: 0x5003)
        signals.note(.objectAdded, parameter: 0x1000)
        XCTAssertEqual(signals, CameraPowerSignals(), "another property, a photo")
        signals.note(.devicePropChanged, parameter: 0x5001)
        signals.note(.storageInfoChanged, parameter: 0x0001_0001)
        signals.note(canon: [.canonEOSBatteryPower: 0, .canonEOSShutterSpeed: 0x38])
        XCTAssertEqual(signals, CameraPowerSignals(batteryChanged: true, storageChanged: true, canonBatteryStep: 0))
    }

    // MARK: - Against the simulator

    /// A session with the simulator, started by its dialect as the tether does.
    private struct Connected {
        let sim: CameraSimProcess
        let session: CameraSession
        var dialect: any CameraDialect
        var power = CameraPower()

        init(profile: String, _ arguments: [String]) throws {
            sim = try CameraSimProcess(profile: profile, arguments: ["--initial-photos", "0", "--photo-size", "50k"] + arguments)
            session = try CameraSession.open(
                PTPIPClientOptions(host: sim.host, port: sim.port, guid: Array(repeating: 9, count: 16), friendlyName: "relay test"),
                stop: StopFlag(), interrupt: { false })
            dialect = DialectCatalog.dialect(for: session.deviceInfo)
            _ = try dialect.start(session)
        }

        /// Polls the camera as the tether does until `done` holds for a change (at most 200 polls),
        /// telling the reader about each photo; every change seen is returned.
        mutating func readUntil(_ done: (PowerChange) -> Bool) throws -> [PowerChange] {
            var seen: [PowerChange] = []
            for _ in 0..<200 {
                let photos = try dialect.poll(session, wait: 0.05).added
                if !photos.isEmpty { power.photoTaken() }
                let changes = try power.update(session, now: session.now, storageReadable: dialect.storageListing(session) != nil)
                seen += changes
                if changes.contains(where: done) { return seen }
            }
            XCTFail("no such change; seen \(seen)")
            return seen
        }

        func close() {
            session.client.close()
            sim.stop()
        }
    }

    func testStandardBodyBatteryDrainsAndCardFillsAsPhotosAreShot() throws {
        var camera = try Connected(
            profile: "generic",
            [
                "--battery", "30", "--battery-drain", "5", "--card-free", "10M",
                "--card-shots", "200",
            ])
        defer { camera.close() }
        XCTAssertEqual(
            try camera.power.update(camera.session, now: camera.session.now, storageReadable: true),
            [.battery(percent: 30), .card(freeBytes: 10_000_000, freeShots: 200)])
        XCTAssertEqual(
            try camera.power.update(camera.session, now: camera.session.now, storageReadable: true), [],
            "nothing changed, nothing reported")
        camera.sim.shootByStdin(3)
        let batteries = try camera.readUntil { $0 == .battery(percent: 15) }.filter {
            if case .battery = $0 { return true } else { return false }
        }
        XCTAssertEqual(batteries.last, .battery(percent: 15))
        XCTAssertEqual(Set(batteries).count, batteries.count, "each level once")
        _ = try camera.readUntil { change in
            if case .card(_, let shots) = change { return (shots ?? 200) < 200 }
            return false
        }
    }

    func testNikonBatteryChangeArrivesInItsEventList() throws {
        var camera = try Connected(profile: "nikon", ["--battery", "50", "--battery-drain", "10"])
        defer { camera.close() }
        XCTAssertEqual(
            try camera.power.update(camera.session, now: camera.session.now, storageReadable: true).first,
            .battery(percent: 50))
        camera.sim.shootByStdin(1)
        _ = try camera.readUntil { $0 == .battery(percent: 40) }
    }

    func testCanonBatteryStepsAndAvailableShotsComeFromTheEventStream() throws {
        var camera = try Connected(
            profile: "canon-eos",
            [
                "--battery", "30", "--battery-drain", "5", "--card-free", "1M",
                "--card-shots", "100",
            ])
        defer { camera.close() }
        let first = try camera.power.update(camera.session, now: camera.session.now, storageReadable: true)
        XCTAssertEqual(first.first, .battery(percent: 25), "30 % is Canon's 25 % step, from the start-up's GetEvent")
        XCTAssertEqual(first.last.flatMap { if case .card(_, let shots) = $0 { return shots } else { return nil } }, 100)
        camera.sim.shootByStdin(2)
        _ = try camera.readUntil { $0 == .battery(percent: BatteryLevel.canonLowPercent) }
    }

    func testSonyBatteryIsItsOwnPropertyAndItsCardIsNotAsked() throws {
        var camera = try Connected(profile: "sony", ["--battery", "77"])
        defer { camera.close() }
        XCTAssertFalse(camera.dialect.storageListing(camera.session) != nil, "PC Remote cannot browse the card")
        XCTAssertEqual(
            try camera.power.update(camera.session, now: camera.session.now, storageReadable: false),
            [.battery(percent: 77)])
    }

    /// A Sony that hands its properties out only in the 0x9209 reply, as real bodies do: the
    /// level is read from there.
    func testSonyBatteryFromTheAllPropertiesReply() throws {
        var camera = try Connected(profile: "sony", ["--battery", "63", "--sony-all-props", "on", "--verbose"])
        defer { camera.close() }
        XCTAssertEqual(try camera.power.update(camera.session, now: camera.session.now, storageReadable: false), [.battery(percent: 63)])
        camera.sim.stop()
        XCTAssertTrue(camera.sim.log.contains("Sony GetAllExtDevicePropInfo (0x9209)"), camera.sim.log)
        XCTAssertFalse(camera.sim.log.contains("GetDevicePropDesc (0x1014)(d218)"), camera.sim.log)
    }

    /// A card that answers StoreNotAvailable gives no reading and no error, and is not asked again.
    func testARefusedCardIsLeftAloneQuietly() throws {
        var camera = try Connected(profile: "sony", ["--battery", "77", "--verbose"])
        defer { camera.close() }
        XCTAssertEqual(try camera.power.update(camera.session, now: 0, storageReadable: true), [.battery(percent: 77)])
        XCTAssertEqual(try camera.power.update(camera.session, now: 1000, storageReadable: true), [])
        camera.sim.stop()
        let asked = camera.sim.log.split(separator: "\n").filter { $0.contains("GetStorageIDs") }
        XCTAssertEqual(asked.count, 1, "asked once: \(asked)")
    }

    /// A body answering DeviceBusy is asked again later, not given up on, and not retried on the spot.
    func testABusyBodyIsAskedAgainLater() throws {
        var camera = try Connected(profile: "generic", ["--battery", "44", "--busy-after-connect", "1s"])
        defer { camera.close() }
        var now = 0.0
        XCTAssertEqual(try camera.power.update(camera.session, now: now, storageReadable: true), [], "busy: nothing yet")
        var changes: [PowerChange] = []
        for _ in 0..<100 where !changes.contains(.battery(percent: 44)) {
            Thread.sleep(forTimeInterval: 0.1)
            now += CameraPower.busyRetry
            changes += try camera.power.update(camera.session, now: now, storageReadable: true)
        }
        XCTAssertTrue(changes.contains(.battery(percent: 44)), "\(changes)")
    }
}
