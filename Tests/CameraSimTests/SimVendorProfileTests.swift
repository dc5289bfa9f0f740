import Foundation
import PTPWire
import XCTest

@testable import CameraSim

/// The vendor profiles' answers without sockets, as relay's tether must meet them.
final class SimVendorProfileTests: XCTestCase {
    private final class FakeClock: @unchecked Sendable {
        var now = 100.0
    }

    private func camera(
        _ profile: SimProfile, quirks: SimQuirks = SimQuirks(), memory: Bool = false,
        clock: FakeClock = FakeClock()
    ) throws -> SimResponder {
        var options = SimOptions()
        options.profile = profile
        options.initialPhotos = 0
        options.photoSize = 3_000
        options.captureToMemory = memory
        var camera = SimResponder(
            profile: profile, card: try CameraCard(options: options), burst: 1, quirks: quirks,
            clock: { clock.now })
        XCTAssertEqual(camera.respond(to: request(.openSession, [1]), dataOut: nil).code, .ok)
        return camera
    }

    private func request(_ code: PTPOperationCode, _ parameters: [UInt32] = []) -> PTPOperationRequest {
        PTPOperationRequest(code: code, transactionID: 1, parameters: parameters)
    }

    private func shoot(_ camera: inout SimResponder) -> SimObject {
        let made = camera.card.shoot(frames: 1)
        camera.collectNewShots()
        return made[0]
    }

    private func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }
    }

    // MARK: - canon-r5m2

    func testR5m2AnnouncesMemoryShotsWithC1B8AndNoObjectInfo() throws {
        var r5 = try camera(.canonR5m2, memory: true)
        _ = r5.respond(to: request(.canonEOSSetEventMode, [1]), dataOut: nil)
        _ = r5.respond(to: request(.canonEOSGetEvent), dataOut: nil)
        let shot = shoot(&r5)
        let data = try XCTUnwrap(r5.respond(to: request(.canonEOSGetEvent), dataOut: nil).bytes)
        XCTAssertEqual(u32(data, 0), 37)
        XCTAssertEqual(
            try CanonEOSEventList.parse(data).records,
            [
                .requestObjectTransfer(
                    CanonObjectAdded(
                        recordType: 0xC1B8, handle: shot.handle, format: .exifJPEG, size: UInt32(shot.size), filename: ""))
            ])
        XCTAssertEqual(r5.respond(to: request(.getObjectInfo, [shot.handle]), dataOut: nil).code, .invalidObjectHandle)
        XCTAssertEqual(r5.respond(to: request(.getObject, [shot.handle]), dataOut: nil).bytes?.count, shot.size)
        XCTAssertEqual(r5.respond(to: request(.canonEOSTransferComplete, [shot.handle]), dataOut: nil).code, .ok)
        XCTAssertNil(r5.card.object(shot.handle), "released after TransferComplete")

        var quirks = SimQuirks()
        quirks.memoryObjectInfoFails = false
        var lenient = try camera(.canonR5m2, quirks: quirks, memory: true)
        let other = shoot(&lenient)
        XCTAssertEqual(lenient.respond(to: request(.getObjectInfo, [other.handle]), dataOut: nil).code, .ok)
    }

    func testR5m2AnnouncesCardShotsWithC1B6NameAtTheEnd() throws {
        var r5 = try camera(.canonR5m2)
        _ = r5.respond(to: request(.canonEOSSetEventMode, [1]), dataOut: nil)
        _ = r5.respond(to: request(.canonEOSGetEvent), dataOut: nil)
        let shot = shoot(&r5)
        let data = try XCTUnwrap(r5.respond(to: request(.canonEOSGetEvent), dataOut: nil).bytes)
        XCTAssertEqual(u32(data, 4), 0xC1B6)
        XCTAssertEqual(
            try CanonEOSEventList.parse(data).newObjects,
            [
                CanonObjectAdded(
                    recordType: 0xC1B6, handle: shot.handle, storageID: CameraCard.storageID, format: .exifJPEG,
                    size: UInt32(shot.size), parent: shot.parent, filename: "IMG_0001.JPG")
            ])
        var reader = PTPDataReader(Array(data[(Int(u32(data, 0)) - 27)..<Int(u32(data, 0))]))
        XCTAssertEqual(try reader.readString(), "IMG_0001.JPG", "the name ends the record")
    }

    // MARK: - canon-eosm

    func testEOSMListsEOSOperationsOnlyAfterRemoteMode0x15() throws {
        var eosm = try camera(.canonEOSM)
        XCTAssertFalse(eosm.operations().contains(PTPOperationCode.canonEOSGetEvent.rawValue))
        XCTAssertTrue(eosm.operations().contains(PTPOperationCode.canonEOSSetRemoteMode.rawValue))
        XCTAssertEqual(eosm.respond(to: request(.canonEOSGetEvent), dataOut: nil).code, .operationNotSupported)
        XCTAssertEqual(eosm.respond(to: request(.canonEOSSetRemoteMode, [1]), dataOut: nil).code, .ok)
        XCTAssertEqual(eosm.respond(to: request(.canonEOSGetEvent), dataOut: nil).code, .operationNotSupported)
        XCTAssertEqual(eosm.respond(to: request(.canonEOSSetRemoteMode, [0x15]), dataOut: nil).code, .ok)
        let info = try PTPDeviceInfo(decoding: try XCTUnwrap(eosm.respond(to: request(.getDeviceInfo), dataOut: nil).bytes))
        XCTAssertTrue(info.operationsSupported.contains(PTPOperationCode.canonEOSGetEvent.rawValue))
        XCTAssertEqual(eosm.respond(to: request(.canonEOSGetEvent), dataOut: nil).code, .ok)
    }

    // MARK: - nikon

    func testNikonAnswersGeneralErrorToObjectInfoRightAfterAnnouncingAPhoto() throws {
        let clock = FakeClock()
        var quirks = SimQuirks()
        quirks.objectInfoBusySeconds = 1
        var nikon = try camera(.nikon, quirks: quirks, clock: clock)
        let shot = shoot(&nikon)
        _ = nikon.respond(to: request(.nikonGetEvent), dataOut: nil)
        XCTAssertEqual(nikon.respond(to: request(.getObjectInfo, [shot.handle]), dataOut: nil).code, .generalError)
        clock.now += 1.1
        XCTAssertEqual(nikon.respond(to: request(.getObjectInfo, [shot.handle]), dataOut: nil).code, .ok)
    }

    // MARK: - nikon-z

    func testNikonZInComputerModeServesOnlyGetPartialObjectExAndGetObjectSize() throws {
        var z = try camera(.nikonZ)
        XCTAssertEqual(z.deviceInfo().vendorExtensionID.rawValue, 0xFFFF_FFFF)
        let shot = shoot(&z)
        XCTAssertEqual(z.takePushEvents(), [PTPEvent(code: .objectAdded, parameters: [shot.handle])])
        XCTAssertEqual(z.takePushEvents(), [], "pushed once")
        let polled = try NikonEventList(decodingEx: try XCTUnwrap(z.respond(to: request(.nikonGetEventEx), dataOut: nil).bytes))
        XCTAssertEqual(polled.addedObjectHandles, [shot.handle], "and reported by GetEventEx")
        for code in [PTPOperationCode.getObjectInfo, .getObject, .getPartialObject] {
            XCTAssertEqual(z.respond(to: request(code, [shot.handle, 0, 100]), dataOut: nil).code, .accessDenied)
        }
        var size = PTPDataReader(try XCTUnwrap(z.respond(to: request(.nikonGetObjectSize, [shot.handle]), dataOut: nil).bytes))
        XCTAssertEqual(try size.readU64(), UInt64(shot.size))
        let tail = z.respond(to: request(.nikonGetPartialObjectEx, [shot.handle, UInt32(shot.size - 10), 0, 1000, 0]), dataOut: nil)
        XCTAssertEqual(tail.code, .ok)
        XCTAssertEqual(tail.parameters, [10, 0])
        XCTAssertEqual(tail.bytes, try shot.content.read(offset: shot.size - 10, count: 10))

        var quirks = SimQuirks()
        quirks.computerMode = false
        var smart = try camera(.nikonZ, quirks: quirks)
        let other = shoot(&smart)
        XCTAssertEqual(smart.respond(to: request(.getObjectInfo, [other.handle]), dataOut: nil).code, .ok)
    }

    // MARK: - sony

    private func sdioHandshake(_ sony: inout SimResponder) {
        for step in [
            request(.sonySDIOConnect, [1, 0, 0]), request(.sonySDIOConnect, [2, 0, 0]),
            request(.sonyGetSDIOExtDeviceInfo, [0xC8]), request(.sonySDIOConnect, [3, 0, 0]),
        ] {
            XCTAssertEqual(sony.respond(to: step, dataOut: nil).code, .ok)
        }
    }

    func testSonyStopsAnsweringWhenAnythingComesBeforeTheSDIOHandshake() throws {
        var sony = try camera(.sony, memory: true)
        XCTAssertEqual(sony.deviceInfo().vendorExtensionID.rawValue, 0xFFFF_FFFF)
        XCTAssertTrue(sony.respond(to: request(.getStorageIDs), dataOut: nil).stopsAnswering)
        XCTAssertTrue(sony.respond(to: request(.sonySDIOConnect, [1, 0, 0]), dataOut: nil).stopsAnswering, "for good")

        var quirks = SimQuirks()
        quirks.sdioHandshakeRequired = false
        var lenient = try camera(.sony, quirks: quirks, memory: true)
        XCTAssertEqual(lenient.respond(to: request(.getStorageIDs), dataOut: nil).code, .storeNotAvailable)
    }

    func testSonyServesPhotosOneAfterAnotherAt0xFFFFC001() throws {
        var sony = try camera(.sony, memory: true)
        sdioHandshake(&sony)
        XCTAssertEqual(sony.respond(to: request(.getObjectHandles, [0xFFFF_FFFF, 0, 0]), dataOut: nil).code, .storeNotAvailable)
        let first = shoot(&sony)
        let second = shoot(&sony)
        let announce = [PTPEvent(code: .sonyObjectAdded, parameters: [0xFFFF_C001])]
        XCTAssertEqual(sony.takePushEvents(), announce)
        XCTAssertEqual(sony.takePushEvents(), [])
        var value = PTPDataReader(try XCTUnwrap(sony.respond(to: request(.getDevicePropValue, [0xD215]), dataOut: nil).bytes))
        XCTAssertEqual(try value.readU16(), 0x8002)
        let info = try PTPObjectInfo(decoding: try XCTUnwrap(sony.respond(to: request(.getObjectInfo, [0xFFFF_C001]), dataOut: nil).bytes))
        XCTAssertEqual(info.filename, first.name)
        XCTAssertEqual(sony.respond(to: request(.getObject, [0xFFFF_C001]), dataOut: nil).bytes?.count, first.size)
        XCTAssertEqual(sony.takePushEvents(), announce, "the next photo appears at the same handle")
        let next = try PTPObjectInfo(decoding: try XCTUnwrap(sony.respond(to: request(.getObjectInfo, [0xFFFF_C001]), dataOut: nil).bytes))
        XCTAssertEqual(next.filename, second.name)
        XCTAssertNil(sony.card.object(first.handle), "read whole, then gone")
    }

    func testSony9280ShutdownEndsTheActivation() throws {
        var sony = try camera(.sony, memory: true)
        sdioHandshake(&sony)
        var start = PTPDataWriter()
        for value: UInt32 in [2, 2, 0, 0] { start.appendU32(value) }
        start.appendBytes([1, 1])
        XCTAssertFalse(sony.respond(to: request(.sonyPTPIPTransferMode, [4]), dataOut: start.bytes).endsActivation)
        var shutdown = PTPDataWriter()
        for value: UInt32 in [0, 5, 0, 0] { shutdown.appendU32(value) }
        XCTAssertTrue(sony.respond(to: request(.sonyPTPIPTransferMode, [4]), dataOut: shutdown.bytes).endsActivation)
        let activation = SimActivation(sessionsPerActivation: 0)
        activation.sessionEnded(shutDown: true)
        XCTAssertFalse(activation.mayServe)
        activation.activate()
        XCTAssertTrue(activation.mayServe)
    }
}
