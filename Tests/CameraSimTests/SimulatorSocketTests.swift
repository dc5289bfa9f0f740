import Foundation
import PTPIP
import PTPWire
import SocketIO
import TestSupport
import XCTest

/// The simulator over real sockets, spoken to with PTPWire: the handshake, vendor behaviour
/// gphoto2 does not exercise, and each fault flag.
final class SimulatorSocketTests: XCTestCase {
    func testHandshakeOpenSessionAndDeviceInfo() throws {
        let sim = try CameraSimProcess(profile: "canon-eos")
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertGreaterThan(client.connectionNumber, 0)
        XCTAssertEqual(try client.openSession().code, .ok)
        let (response, data) = try client.call(0x1001)
        XCTAssertEqual(response.code, .ok)
        XCTAssertEqual(response.transactionID, 1, "a response echoes its request's transaction id")
        let info = try PTPDeviceInfo(decoding: try XCTUnwrap(data))
        XCTAssertEqual(info.vendorExtensionID, .canon)
        XCTAssertEqual(info.manufacturer, "Canon.Inc")
        XCTAssertTrue(info.supports(.canonEOSGetEvent))
        XCTAssertEqual(try client.call(0x1002, [1]).response.code, .sessionAlreadyOpen)
        XCTAssertEqual(sim.stop(), 0, "SIGTERM with a client connected is a clean stop")
    }

    func testUnknownOperationIsAnsweredOperationNotSupported() throws {
        let sim = try CameraSimProcess(profile: "generic")
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        let (response, data) = try client.call(0x9999, [1, 2])
        XCTAssertEqual(response.code, .operationNotSupported)
        XCTAssertNil(data)
        // Canon operations are unknown to a generic camera.
        XCTAssertEqual(try client.call(0x9116).response.code, .operationNotSupported)
        // The session still works afterwards.
        XCTAssertEqual(try client.call(0x1004).response.code, .ok)
    }

    func testOperationsBeforeOpenSessionAreRefused() throws {
        let sim = try CameraSimProcess(profile: "nikon")
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        _ = try client.call(0x1001)  // tid 0: allowed without a session
        XCTAssertEqual(try client.call(0x1004).response.code, .sessionNotOpen)
    }

    func testProbeRequestOnTheEventChannelIsAnswered() throws {
        let sim = try CameraSimProcess(profile: "canon-eos")
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        try client.event.send(.probeRequest, timeout: 10)
        XCTAssertEqual(try client.event.nextPacket(timeout: 30, waitingFor: "ProbeResponse"), .probeResponse)
    }

    func testCanonGetEventIsOnlyTheTerminatorUntilEventModeThenReportsEachShotOnce() throws {
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--initial-photos", "0"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        XCTAssertEqual(try client.call(0x9128, [3, 0]).response.code, .ok)  // full press: a shot
        XCTAssertEqual(
            try client.call(0x9116).data, [8, 0, 0, 0, 0, 0, 0, 0],
            "GetEvent before SetEventMode(1) must be the terminator alone")
        XCTAssertEqual(try client.call(0x9115, [1]).response.code, .ok)
        let dump = try CanonEOSEventList.parse(try XCTUnwrap(client.call(0x9116).data))
        XCTAssertEqual(dump.records.count, 98 + 84 + 2, "the first GetEvent is the recorded property dump of a real body")
        XCTAssertEqual(dump.ignoredTrailingByteCount, 117)
        XCTAssertTrue(dump.newObjects.isEmpty, "properties come before any photo")
        let events = try CanonEOSEventList.parse(try XCTUnwrap(client.call(0x9116).data))
        let added = events.newObjects
        XCTAssertEqual(added.map(\.filename), ["IMG_0001.JPG"])
        XCTAssertEqual(added.first?.format, .exifJPEG)
        XCTAssertNotNil(events.terminatorOffset)
        let again = try CanonEOSEventList.parse(try XCTUnwrap(client.call(0x9116).data))
        XCTAssertTrue(again.isEmpty, "an idle camera answers the terminator alone")
        // The announced object is really there, in its folder.
        let handle = try XCTUnwrap(added.first?.handle)
        let info = try PTPObjectInfo(decoding: try XCTUnwrap(client.call(0x1008, [handle]).data))
        XCTAssertEqual(info.filename, "IMG_0001.JPG")
        XCTAssertEqual(info.parentObject, added.first?.parent)
        XCTAssertNotEqual(info.parentObject, 0)
    }

    func testCanonShotInCameraMemoryIsAnnouncedForTransferAndGoneAfterTransferComplete() throws {
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--initial-photos", "0", "--capture-to", "memory"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        XCTAssertEqual(try client.call(0x9115, [1]).response.code, .ok)
        XCTAssertEqual(try client.call(0x910F).response.code, .ok)
        _ = try client.call(0x9116)  // the property dump
        let events = try CanonEOSEventList.parse(try XCTUnwrap(client.call(0x9116).data))
        let object = try XCTUnwrap(events.newObjects.first)
        XCTAssertTrue(object.needsTransferComplete)
        let (partial, bytes) = try client.call(0x101B, [object.handle, 0, 1 << 20])
        XCTAssertEqual(partial.code, .ok)
        XCTAssertEqual(bytes?.count, Int(object.size))
        XCTAssertEqual(partial.parameters, [object.size])
        XCTAssertEqual(try client.call(0x9117, [object.handle]).response.code, .ok)
        XCTAssertEqual(try client.call(0x1008, [object.handle]).response.code, .invalidObjectHandle)
    }

    func testNikonGetEventReportsNewShots() throws {
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--initial-photos", "0", "--raw"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        XCTAssertEqual(try client.call(0x100E, [0, 0]).response.code, .ok)
        let list = try NikonEventList(decoding: try XCTUnwrap(client.call(0x90C7).data))
        XCTAssertEqual(list.addedObjectHandles.count, 2, "a JPEG and its NEF")
        let names = try list.addedObjectHandles.map {
            try PTPObjectInfo(decoding: try XCTUnwrap(client.call(0x1008, [$0]).data)).filename
        }
        XCTAssertEqual(names, ["DSC_0001.JPG", "DSC_0001.NEF"])
        XCTAssertTrue(try NikonEventList(decoding: try XCTUnwrap(client.call(0x90C7).data)).events.isEmpty)
    }

    func testGenericInitiateCapturePushesObjectAddedThenCaptureComplete() throws {
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--initial-photos", "0", "--burst", "2"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        let capture = try client.call(0x100E, [0, 0]).response
        XCTAssertEqual(capture.code, .ok)
        var codes: [PTPEventCode] = []
        while codes.last != .captureComplete, let event = try client.nextEvent(timeout: 30) {
            codes.append(event.code)
        }
        XCTAssertEqual(codes, [.objectAdded, .objectAdded, .captureComplete])
    }

    func testStdinShootIsPushedToAGenericClient() throws {
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--initial-photos", "0"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        sim.shootByStdin(1)
        guard let event = try client.nextEvent(timeout: 30) else {
            return XCTFail("no event after 'shoot' on stdin; log:\n\(sim.log)")
        }
        XCTAssertEqual(event.code, .objectAdded)
        let info = try PTPObjectInfo(decoding: try XCTUnwrap(client.call(0x1008, [try XCTUnwrap(event.parameters.first)]).data))
        XCTAssertEqual(info.filename, "DSC00001.JPG")
    }

    // MARK: - Faults

    func testBusyAfterConnectAnswersDeviceBusyButLetsTheSessionOpen() throws {
        let sim = try CameraSimProcess(profile: "generic", arguments: ["--busy-after-connect", "120s"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        XCTAssertEqual(try client.call(0x1004).response.code, .deviceBusy)
        XCTAssertEqual(try client.call(0x1007, [0xFFFF_FFFF, 0, 0]).response.code, .deviceBusy)
    }

    func testBusyRateIsReproducibleWithTheSameSeed() throws {
        func busyPattern() throws -> [Bool] {
            let sim = try CameraSimProcess(profile: "generic", arguments: ["--busy-rate", "0.5", "--seed", "42"])
            defer { sim.stop() }
            let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
            XCTAssertEqual(try client.openSession().code, .ok)
            return try (0..<24).map { _ in try client.call(0x1004).response.code == .deviceBusy }
        }
        let first = try busyPattern()
        XCTAssertTrue(first.contains(true) && first.contains(false), "a rate of 0.5 should give both answers: \(first)")
        XCTAssertEqual(try busyPattern(), first)
    }

    func testDropAfterBytesClosesTheConnectionOnceThenServesTheNextClient() throws {
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--drop-after-bytes", "100"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        XCTAssertThrowsError(try client.call(0x1001), "the device info passes the 100-byte mark")
        let second = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try second.openSession().code, .ok)
        XCTAssertEqual(try second.call(0x1001).response.code, .ok)
    }

    func testDropDuringTransferCutsTheGivenTransferHalfway() throws {
        let sim = try CameraSimProcess(
            profile: "generic",
            arguments: ["--initial-photos", "2", "--photo-size", "300k", "--drop-during-transfer", "2"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        let handles = try folderPhotos(client)
        XCTAssertEqual(handles.count, 2)
        let first = try client.call(0x1009, [handles[0]])
        XCTAssertEqual(first.response.code, .ok)
        XCTAssertGreaterThan(first.data?.count ?? 0, 250_000)
        XCTAssertThrowsError(try client.call(0x1009, [handles[1]]))
        // Reconnecting resumes with a partial read, as a resuming client would.
        let again = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try again.openSession().code, .ok)
        let tail = try again.call(0x101B, [handles[1], 150_000, 1 << 20])
        XCTAssertEqual(tail.response.code, .ok)
        XCTAssertEqual(tail.data?.count, Int(tail.response.parameters.first ?? 0))
    }

    func testIdleClientIsDroppedAsRealBodiesDo() throws {
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--idle-timeout", "1s"])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 20) { sim.log.contains("no operation for 1.0 s") }, sim.log)
        XCTAssertThrowsError(try client.call(0x1004), "a client idle past the timeout is dropped")
    }

    func testDropEveryCutsTheLinkAgainAndAgain() throws {
        let sim = try CameraSimProcess(
            profile: "generic",
            arguments: ["--initial-photos", "1", "--photo-size", "300k", "--drop-every", "100k"])
        defer { sim.stop() }
        var drops = 0
        for _ in 0..<3 {
            let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
            XCTAssertEqual(try client.openSession().code, .ok)
            let handle = try XCTUnwrap(try folderPhotos(client).first)
            if (try? client.call(0x1009, [handle])) == nil { drops += 1 }
        }
        XCTAssertEqual(drops, 3, "every whole-file read of 300 kB crosses a 100 kB mark")
        XCTAssertEqual(sim.log.components(separatedBy: "dropped the connection after another 100000 bytes").count - 1, 3, sim.log)
    }

    func testClientWithoutAnEventChannelIsRefused() throws {
        let sim = try CameraSimProcess(profile: "nikon", arguments: ["--event-timeout", "500ms"])
        defer { sim.stop() }
        let command = PTPIPChannel(connection: try TCPConnection.connect(host: "127.0.0.1", port: sim.port, timeout: 30))
        try command.send(
            .initCommandRequest(
                guid: Array(repeating: 7, count: 16), friendlyName: "relay-test",
                protocolVersion: PTPIPPacket.protocolVersion1_0), timeout: 30)
        guard case .initCommandAck = try command.nextPacket(timeout: 30, waitingFor: "InitCommandAck") else {
            return XCTFail("no InitCommandAck")
        }
        XCTAssertThrowsError(
            try command.nextPacket(timeout: 30, waitingFor: "the close"),
            "the camera should close a client with no event channel"
        ) { error in
            guard case .closedByCamera = error as? PTPIPError else { return XCTFail("\(error)") }
        }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { sim.log.contains("event channel not opened") }, sim.log)
    }

    func testRateLimitAndRandomSplitStillDeliverTheSameBytes() throws {
        let export = try TestPaths.makeTemporaryDirectory("sim-export")
        defer { try? FileManager.default.removeItem(at: export) }
        let sim = try CameraSimProcess(
            profile: "canon-eos",
            arguments: [
                "--initial-photos", "1", "--photo-size", "120k", "--rate-limit", "2M", "--random-split",
                "--export", export.path,
            ])
        defer { sim.stop() }
        let client = try PTPIPClient.connect(toSimulatorOn: sim.port)
        XCTAssertEqual(try client.openSession().code, .ok)
        let handle = try XCTUnwrap(try folderPhotos(client).first)
        let data = try XCTUnwrap(client.call(0x1009, [handle]).data)
        XCTAssertEqual(Data(data), try Data(contentsOf: export.appendingPathComponent("IMG_0001.JPG")))
    }

    /// Handles of the photos (not folders) on the card.
    private func folderPhotos(_ client: PTPIPClient) throws -> [UInt32] {
        let listing = try XCTUnwrap(client.call(0x1007, [0xFFFF_FFFF, 0, 0]).data)
        var reader = PTPDataReader(listing)
        return try reader.readArrayU32().filter { handle in
            let info = try PTPObjectInfo(decoding: try XCTUnwrap(client.call(0x1008, [handle]).data))
            return !info.isFolder
        }
    }
}
