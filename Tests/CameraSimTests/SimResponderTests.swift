import Foundation
import PTPWire
import TestSupport
import XCTest

@testable import CameraSim

/// The camera's answers without sockets: folder filters, transfers at the edges, deletion,
/// sessions.
final class SimResponderTests: XCTestCase {
    private func responder(_ profile: SimProfile, photos: Int = 2) throws -> SimResponder {
        var options = SimOptions()
        options.profile = profile
        options.initialPhotos = photos
        options.photoSize = 5_000
        var responder = SimResponder(profile: profile, card: try CameraCard(options: options), burst: 1)
        XCTAssertEqual(responder.respond(to: request(0x1002, [1]), dataOut: nil).code, .ok)
        return responder
    }

    private func request(_ code: UInt16, _ parameters: [UInt32] = []) -> PTPOperationRequest {
        PTPOperationRequest(code: PTPOperationCode(code), transactionID: 1, parameters: parameters)
    }

    private func handles(_ responder: inout SimResponder, parent: UInt32) throws -> [UInt32] {
        let reply = responder.respond(to: request(0x1007, [0xFFFF_FFFF, 0, parent]), dataOut: nil)
        var reader = PTPDataReader(try XCTUnwrap(reply.bytes))
        return try reader.readArrayU32()
    }

    func testFolderTreeFollowsTheParentFilter() throws {
        var camera = try responder(.canonEOS)
        let root = try handles(&camera, parent: 0xFFFF_FFFF)
        XCTAssertEqual(root.count, 1, "only DCIM in the root")
        let dcim = try XCTUnwrap(root.first)
        let inDCIM = try handles(&camera, parent: dcim)
        XCTAssertEqual(inDCIM.count, 1, "one camera folder in DCIM")
        let photos = try handles(&camera, parent: try XCTUnwrap(inDCIM.first))
        XCTAssertEqual(photos.count, 2)
        XCTAssertEqual(try handles(&camera, parent: 0).count, 4, "0 means every object")
        let folder = try PTPObjectInfo(decoding: try XCTUnwrap(camera.respond(to: request(0x1008, [dcim]), dataOut: nil).bytes))
        XCTAssertTrue(folder.isFolder)
        XCTAssertEqual(folder.associationType, PTPObjectInfo.associationGenericFolder)
        XCTAssertEqual(folder.filename, "DCIM")
    }

    func testPartialReadsAtTheEdgesOfAnObject() throws {
        var camera = try responder(.generic)
        let photo = try XCTUnwrap(try handles(&camera, parent: 0).last)
        let whole = try XCTUnwrap(camera.respond(to: request(0x1009, [photo]), dataOut: nil).bytes)
        let tail = camera.respond(to: request(0x101B, [photo, UInt32(whole.count - 10), 1000]), dataOut: nil)
        XCTAssertEqual(tail.bytes, Array(whole.suffix(10)))
        XCTAssertEqual(tail.parameters, [10])
        let beyond = camera.respond(to: request(0x101B, [photo, 0xFFFF_FFF0, 1000]), dataOut: nil)
        XCTAssertEqual(beyond.code, .ok)
        XCTAssertEqual(beyond.bytes, [])
        XCTAssertEqual(camera.respond(to: request(0x1009, [0xDEAD]), dataOut: nil).code, .invalidObjectHandle)
    }

    func testCanonAnswersItsFirstGetEventWithTheRecordedReplyOfARealBody() throws {
        let shared = TestPaths.repositoryRoot.deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/canon-eos/getevent-initial.bin")
        XCTAssertEqual(
            CanonEOSRecordedEvents.firstGetEvent, [UInt8](try Data(contentsOf: shared)),
            "the simulator's copy must be the shared fixture, byte for byte")
        var camera = try responder(.canonEOS, photos: 0)
        XCTAssertEqual(camera.respond(to: request(0x9115, [1]), dataOut: nil).code, .ok)
        camera.card.shoot(frames: 1)
        camera.collectNewShots()
        let shots = camera.card.freeSpace.shots
        let dump = try XCTUnwrap(camera.respond(to: request(0x9116), dataOut: nil).bytes)
        XCTAssertEqual(dump, CanonEOSRecordedEvents.firstGetEvent(batteryStep: 2, availableShots: shots))
        XCTAssertEqual(try CanonEOSEventList.parse(dump).records.count, 184, "the recording's records, two values changed")
        XCTAssertEqual(try CanonEOSEventList.parse(dump).propertyValues[.canonEOSAvailableShots], shots)
        camera.changeProperty()
        let next = try CanonEOSEventList.parse(try XCTUnwrap(camera.respond(to: request(0x9116), dataOut: nil).bytes))
        XCTAssertEqual(next.newObjects.map(\.filename), ["IMG_0001.JPG"], "the shot follows the property dump")
        XCTAssertEqual(
            next.records.last, .propValueChanged(property: CanonEOSBehaviour.batteryPowerProperty, value: 2, raw: []),
            "a property change is reported with the next GetEvent")
    }

    func testCanonPropertyFloodPutsRecordsInEveryReply() throws {
        var options = SimOptions()
        options.initialPhotos = 0
        var camera = SimResponder(profile: .canonEOS, card: try CameraCard(options: options), burst: 1, propertyFlood: 30)
        for code: UInt16 in [0x1002, 0x9115] {
            XCTAssertEqual(camera.respond(to: request(code, [1]), dataOut: nil).code, .ok)
        }
        _ = camera.respond(to: request(0x9116), dataOut: nil)
        for _ in 0..<3 {
            let list = try CanonEOSEventList.parse(try XCTUnwrap(camera.respond(to: request(0x9116), dataOut: nil).bytes))
            XCTAssertEqual(list.records.count, 30)
        }
    }

    func testNikonGetEventExCarriesTheSameShots() throws {
        var camera = try responder(.nikon, photos: 0)
        XCTAssertTrue(SimResponder.operations(for: .nikon).contains(0x941C))
        camera.card.shoot(frames: 1)
        camera.collectNewShots()
        let list = try NikonEventList(decodingEx: try XCTUnwrap(camera.respond(to: request(0x941C), dataOut: nil).bytes))
        XCTAssertEqual(list.addedObjectHandles.count, 1)
        XCTAssertTrue(try NikonEventList(decodingEx: try XCTUnwrap(camera.respond(to: request(0x941C), dataOut: nil).bytes)).events.isEmpty)
    }

    func testDeleteRemovesPhotosButNotFolders() throws {
        var camera = try responder(.nikon)
        let all = try handles(&camera, parent: 0)
        XCTAssertEqual(
            camera.respond(to: request(0x100B, [all[0]]), dataOut: nil).code, .invalidObjectHandle,
            "DCIM is a folder")
        XCTAssertEqual(camera.respond(to: request(0x100B, [all[3]]), dataOut: nil).code, .ok)
        XCTAssertEqual(try handles(&camera, parent: 0).count, 3)
        XCTAssertEqual(camera.respond(to: request(0x1008, [all[3]]), dataOut: nil).code, .invalidObjectHandle)
    }

    func testCloseSessionEndsTheSession() throws {
        var camera = try responder(.generic)
        XCTAssertEqual(camera.respond(to: request(0x1003), dataOut: nil).code, .ok)
        XCTAssertEqual(camera.respond(to: request(0x1004), dataOut: nil).code, .sessionNotOpen)
        XCTAssertTrue(SimResponder.isExemptFromBusy(.openSession))
        XCTAssertFalse(SimResponder.isExemptFromBusy(.getObject))
    }

    func testDeviceInfoListsWhatEachProfileAnswers() throws {
        for profile in SimProfile.allCases {
            var camera = try responder(profile)
            let info = try PTPDeviceInfo(decoding: try XCTUnwrap(camera.respond(to: request(0x1001), dataOut: nil).bytes))
            XCTAssertEqual(info.vendorExtensionID.rawValue, profile.vendorExtensionID)
            for code in info.operationsSupported {
                let reply = camera.respond(to: request(code, [0xFFFF_FFFF, 0, 0]), dataOut: nil)
                XCTAssertNotEqual(
                    reply.code, .operationNotSupported,
                    "\(profile.rawValue) lists \(PTPOperationCode(code)) but does not answer it")
                if code == 0x1003 { XCTAssertEqual(camera.respond(to: request(0x1002, [1]), dataOut: nil).code, .ok) }
            }
        }
    }
}

extension SimReply {
    /// The whole data phase in memory (the session streams it; tests compare it).
    var bytes: [UInt8]? {
        try? data.map { try $0.read(at: 0, length: $0.count) }
    }
}
