import PTPWire
import XCTest

@testable import CameraSim

/// The simulated battery and card: options, and how each family reports them (standard
/// BatteryLevel and DevicePropChanged, Nikon's event list, Canon's event stream, Sony's 0xD218,
/// StorageInfo), without sockets.
final class SimBatteryAndCardTests: XCTestCase {
    private func responder(_ profile: SimProfile, _ arguments: [String] = [], photos: Int = 0) throws -> SimResponder {
        var options = try SimOptions.parse(
            [
                "--profile", profile.rawValue, "--initial-photos", String(photos),
                "--photo-size", "5k",
            ] + arguments)
        options.quirks.sdioHandshakeRequired = false
        var responder = SimResponder(
            profile: profile, card: try CameraCard(options: options), burst: 1,
            quirks: options.quirks)
        XCTAssertEqual(responder.respond(to: request(0x1002, [1]), dataOut: nil).code, .ok)
        return responder
    }

    private func request(_ code: PTPOperationCode, _ parameters: [UInt32] = []) -> PTPOperationRequest {
        PTPOperationRequest(code: code, transactionID: 1, parameters: parameters)
    }

    private func request(_ code: UInt16, _ parameters: [UInt32] = []) -> PTPOperationRequest {
        request(PTPOperationCode(code), parameters)
    }

    private func shoot(_ camera: inout SimResponder, _ frames: Int = 1) {
        for _ in 0..<frames { camera.card.shoot(frames: 1) }
        camera.collectNewShots()
    }

    private func batteryPercent(_ camera: inout SimResponder, _ property: PTPDevicePropertyCode = .batteryLevel) throws -> Int? {
        let reply = camera.respond(to: request(.getDevicePropDesc, [UInt32(property.rawValue)]), dataOut: nil)
        XCTAssertEqual(reply.code, .ok)
        let desc = try PTPDevicePropDesc(decoding: try XCTUnwrap(reply.bytes))
        return property == .sonyBatteryLevel ? BatteryLevel.percent(sony: desc) : BatteryLevel.percent(standard: desc)
    }

    private func storage(_ camera: inout SimResponder) throws -> PTPStorageInfo {
        let reply = camera.respond(to: request(.getStorageInfo, [CameraCard.storageID]), dataOut: nil)
        return try PTPStorageInfo(decoding: try XCTUnwrap(reply.bytes))
    }

    func testOptionsParseAndRefuseNonsense() throws {
        let options = try SimOptions.parse([
            "--profile", "generic", "--battery", "30", "--battery-drain", "2.5",
            "--card-free", "25M", "--card-shots", "120",
        ])
        XCTAssertEqual(options.resources.batteryPercent, 30)
        XCTAssertEqual(options.resources.drainPerShot, 2.5)
        XCTAssertEqual(options.resources.cardFreeBytes, 25_000_000)
        XCTAssertEqual(options.resources.cardFreeShots, 120)
        XCTAssertEqual(try SimOptions.parse(["--profile", "generic"]).resources, SimResourceOptions())
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "generic", "--battery", "101"]))
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "generic", "--battery-drain", "-1"]))
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "generic", "--card-free", "lots"]))
        XCTAssertTrue(SimOptions.spec.help.contains("--battery-drain PERCENT"))
    }

    func testStandardBodyListsBatteryLevelAndPushesItsChanges() throws {
        var camera = try responder(.generic, ["--battery", "30", "--battery-drain", "5"])
        let info = try PTPDeviceInfo(decoding: try XCTUnwrap(camera.respond(to: request(0x1001), dataOut: nil).bytes))
        XCTAssertTrue(info.devicePropertiesSupported.contains(0x5001))
        XCTAssertEqual(try batteryPercent(&camera), 30)
        XCTAssertEqual(camera.takePushEvents(), [], "the level the client reads at connect is not pushed")
        shoot(&camera)
        let pushed = camera.takePushEvents()
        XCTAssertEqual(pushed.map(\.code), [.objectAdded, .devicePropChanged])
        XCTAssertEqual(pushed.last?.parameters, [0x5001])
        XCTAssertEqual(try batteryPercent(&camera), 25)
        let value = camera.respond(to: request(.getDevicePropValue, [0x5001]), dataOut: nil)
        XCTAssertEqual(try PTPDevicePropDesc.decodeValue(try XCTUnwrap(value.bytes), as: .uint8), 25)
        XCTAssertEqual(camera.respond(to: request(.getDevicePropDesc, [0x5003]), dataOut: nil).code, .devicePropNotSupported)
        XCTAssertEqual(camera.takePushEvents(), [], "one change, one event")
    }

    func testNikonReportsTheChangeInItsEventList() throws {
        var camera = try responder(.nikon, ["--battery", "22", "--battery-drain", "3"])
        _ = camera.respond(to: request(.nikonGetEvent), dataOut: nil)
        shoot(&camera)
        let list = try NikonEventList(decoding: try XCTUnwrap(camera.respond(to: request(.nikonGetEvent), dataOut: nil).bytes))
        XCTAssertEqual(list.events.map(\.code), [.objectAdded, .devicePropChanged])
        XCTAssertEqual(list.events.last?.parameter, 0x5001)
        XCTAssertEqual(try batteryPercent(&camera), 19)
    }

    func testCanonReportsStepsAndShotsInItsEventStream() throws {
        var camera = try responder(
            .canonEOS,
            [
                "--battery", "30", "--battery-drain", "5", "--card-free", "1M",
                "--card-shots", "100",
            ])
        XCTAssertEqual(camera.respond(to: request(.canonEOSSetEventMode, [1]), dataOut: nil).code, .ok)
        let dump = try CanonEOSEventList.parse(try XCTUnwrap(camera.respond(to: request(.canonEOSGetEvent), dataOut: nil).bytes))
        XCTAssertEqual(dump.propertyValues[.canonEOSBatteryPower], 5, "30 % is Canon's 25 % step, in the recorded dump")
        XCTAssertEqual(dump.propertyValues[.canonEOSAvailableShots], 100)
        XCTAssertTrue(
            try CanonEOSEventList.parse(try XCTUnwrap(camera.respond(to: request(.canonEOSGetEvent), dataOut: nil).bytes)).isEmpty,
            "nothing changed since")
        shoot(&camera)
        let second = try CanonEOSEventList.parse(try XCTUnwrap(camera.respond(to: request(.canonEOSGetEvent), dataOut: nil).bytes))
        XCTAssertEqual(second.propertyValues[.canonEOSBatteryPower], nil, "25 % is still the 25 % step")
        XCTAssertLessThan(try XCTUnwrap(second.propertyValues[.canonEOSAvailableShots]), 100)
        XCTAssertEqual(second.newObjects.count, 1)
        shoot(&camera)
        let third = try CanonEOSEventList.parse(try XCTUnwrap(camera.respond(to: request(.canonEOSGetEvent), dataOut: nil).bytes))
        XCTAssertEqual(third.propertyValues[.canonEOSBatteryPower], 0, "20 % is Low")
    }

    func testSonyListsItsOwnBatteryProperty() throws {
        var camera = try responder(.sony, ["--battery", "64"])
        let extra = camera.respond(to: request(.sonyGetSDIOExtDeviceInfo, [0x12C, 1]), dataOut: nil)
        XCTAssertTrue(try SonyExtDeviceInfo(decoding: try XCTUnwrap(extra.bytes)).codes.contains(0xD218))
        XCTAssertEqual(try batteryPercent(&camera, .sonyBatteryLevel), 64)
    }

    func testStorageInfoShrinksWithEveryPhotoKeptOnTheCard() throws {
        var camera = try responder(.generic, ["--card-free", "10M", "--card-shots", "200"])
        let before = try storage(&camera)
        XCTAssertEqual(before.freeSpaceInBytes, 10_000_000)
        XCTAssertEqual(before.freeImages, 200)
        shoot(&camera, 3)
        let after = try storage(&camera)
        XCTAssertEqual(after.freeSpaceInBytes, 10_000_000 - UInt64(camera.card.usedBytes))
        XCTAssertEqual(after.freeImages, Int(after.freeSpaceInBytes) / 50_000)
        var defaults = try responder(.generic, photos: 2)
        XCTAssertEqual(try storage(&defaults).maxCapacity, 32_000_000_000, "a 32 GB card by default")
    }
}
