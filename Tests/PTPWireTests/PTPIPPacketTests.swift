import XCTest

@testable import PTPWire

final class PTPIPPacketTests: XCTestCase {
    private func decodeWhole(_ bytes: [UInt8]) throws -> PTPIPPacket {
        XCTAssertGreaterThanOrEqual(bytes.count, 8)
        let length = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        XCTAssertEqual(Int(length), bytes.count, "length field counts the whole packet")
        let type = UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24
        return try PTPIPPacket.decode(type: type, payload: bytes[8...])
    }

    func testEveryPacketTypeRoundTrips() throws {
        var typesSeen = Set<UInt32>()
        for packet in Samples.packets {
            let bytes = packet.encoded()
            XCTAssertEqual(try decodeWhole(bytes), packet, "\(packet)")
            XCTAssertEqual(try PTPIPPacket.decode(type: packet.type.rawValue, payload: Array(bytes.dropFirst(8))), packet)
            typesSeen.insert(packet.type.rawValue)
        }
        XCTAssertEqual(typesSeen, Set(PTPIPPacketType.allCases.map(\.rawValue)), "samples cover every packet type")
    }

    func testInitCommandRequestLayout() throws {
        let packet = PTPIPPacket.initCommandRequest(guid: Samples.guid, friendlyName: "ab", protocolVersion: 0x0001_0000)
        let bytes = packet.encoded()
        var expected: [UInt8] = [34, 0, 0, 0, 1, 0, 0, 0] + Samples.guid
        expected += [0x61, 0, 0x62, 0, 0, 0]  // UTF-16LE name, NUL, no length prefix
        expected += [0, 0, 1, 0]  // u16 minor 0, u16 major 1
        XCTAssertEqual(bytes, expected)
    }

    func testOperationRequestLayout() {
        let packet = PTPIPPacket.operationRequest(PTPOperationRequest(code: .openSession, transactionID: 0, parameters: [1]))
        XCTAssertEqual(packet.encoded(), [22, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 0x02, 0x10, 0, 0, 0, 0, 1, 0, 0, 0])
    }

    func testResponseParameterCountComesFromLength() throws {
        let bytes: [UInt8] = [0x01, 0x20, 5, 0, 0, 0, 0xAA, 0, 0, 0, 0xBB, 0, 0, 0]
        XCTAssertEqual(
            try PTPIPPacket.decode(type: 7, payload: bytes),
            .operationResponse(PTPOperationResponse(code: .ok, transactionID: 5, parameters: [0xAA, 0xBB])))
    }

    func testGUIDIsPaddedOrClippedTo16Bytes() throws {
        let short = PTPIPPacket.initCommandRequest(guid: [1, 2], friendlyName: "x", protocolVersion: 1)
        guard case .initCommandRequest(let guid, _, _) = try decodeWhole(short.encoded()) else {
            return XCTFail("wrong packet")
        }
        XCTAssertEqual(guid, [1, 2] + Array(repeating: 0, count: 14))
        let long = PTPIPPacket.initCommandAck(connectionNumber: 1, guid: Array(0..<20), friendlyName: "x", protocolVersion: 1)
        XCTAssertEqual(long.encoded().count, 8 + 4 + 16 + 4 + 4)
    }

    func testTooManyParametersAreTypedErrors() {
        let six = [UInt8](repeating: 0, count: 4 + 2 + 4 + 24)
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 6, payload: six)) { error in
            XCTAssertEqual(error as? PTPWireError, .tooManyParameters(count: 6, limit: 5))
        }
        let fourEventParameters = [UInt8](repeating: 0, count: 2 + 4 + 16)
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 8, payload: fourEventParameters)) { error in
            XCTAssertEqual(error as? PTPWireError, .tooManyParameters(count: 4, limit: 3))
        }
    }

    func testEncoderDropsParametersBeyondTheMaximum() throws {
        let packet = PTPIPPacket.event(PTPEvent(code: .objectAdded, parameters: [1, 2, 3, 4]))
        XCTAssertEqual(try decodeWhole(packet.encoded()), .event(PTPEvent(code: .objectAdded, parameters: [1, 2, 3])))
    }

    func testMisalignedParametersAreTypedErrors() {
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 7, payload: [1, 0x20, 0, 0, 0, 0, 1, 2, 3])) { error in
            XCTAssertEqual(error as? PTPWireError, .misalignedParameters(byteCount: 3))
        }
    }

    func testFixedPacketsRejectMissingAndExtraBytes() {
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 9, payload: [1, 0, 0, 0, 5])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 8, available: 1))
        }
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 4, payload: [0])) { error in
            XCTAssertEqual(error as? PTPWireError, .trailingBytes(packetType: 4, count: 1))
        }
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 10, payload: [1, 0])) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 4, available: 2))
        }
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 1, payload: Array(repeating: 0, count: 18))) { error in
            XCTAssertEqual(error as? PTPWireError, .truncated(needed: 4, available: 2))
        }
        XCTAssertThrowsError(try PTPIPPacket.decode(type: 1, payload: Array(repeating: 0, count: 16 + 3 + 4))) { error in
            XCTAssertEqual(error as? PTPWireError, .malformedString)
        }
    }

    func testUnknownPacketTypeIsTypedError() {
        for type: UInt32 in [0, 15, 0xFFFF_FFFF] {
            XCTAssertThrowsError(try PTPIPPacket.decode(type: type, payload: [])) { error in
                XCTAssertEqual(error as? PTPWireError, .unknownPacketType(type))
            }
        }
    }

    func testFriendlyNameWithoutNULIsTolerated() throws {
        let payload: [UInt8] = Samples.guid + [0x41, 0, 0x42, 0] + [0, 0, 1, 0]
        XCTAssertEqual(
            try PTPIPPacket.decode(type: 1, payload: payload),
            .initCommandRequest(guid: Samples.guid, friendlyName: "AB", protocolVersion: 0x0001_0000))
    }

    func testDataPhaseSplitsIntoStartDataChunksAndEndData() throws {
        let payload = (0..<10).map { UInt8($0) }
        let packets = PTPIPPacket.dataPhase(transactionID: 3, payload: payload, chunkSize: 4)
        XCTAssertEqual(
            packets,
            [
                .startData(transactionID: 3, totalLength: 10),
                .data(transactionID: 3, payload: [0, 1, 2, 3]),
                .data(transactionID: 3, payload: [4, 5, 6, 7]),
                .endData(transactionID: 3, payload: [8, 9]),
            ])
        XCTAssertEqual(
            PTPIPPacket.dataPhase(transactionID: 1, payload: []),
            [.startData(transactionID: 1, totalLength: 0), .endData(transactionID: 1, payload: [])])
    }
}
