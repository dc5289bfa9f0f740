import RelayCore
import XCTest

@testable import PTPWire

final class PTPIPPacketReaderTests: XCTestCase {
    /// Several packets including a multi-KB data phase, as one byte stream.
    private var streamPackets: [PTPIPPacket] {
        var rng = SeededRandom(seed: 42)
        let big = rng.bytes(3000)
        return [
            .initCommandAck(connectionNumber: 1, guid: Samples.guid, friendlyName: "cam", protocolVersion: 0x0001_0000),
            .operationResponse(PTPOperationResponse(code: .ok, transactionID: 1)),
            .startData(transactionID: 2, totalLength: UInt64(big.count + 5)),
            .data(transactionID: 2, payload: big),
            .endData(transactionID: 2, payload: [1, 2, 3, 4, 5]),
            .endData(transactionID: 2, payload: []),
            .operationResponse(PTPOperationResponse(code: .ok, transactionID: 2, parameters: [3005])),
            .probeRequest,
        ]
    }

    private func drain(_ reader: inout PTPIPPacketReader, into packets: inout [PTPIPPacket]) throws {
        while let packet = try reader.nextPacket() { packets.append(packet) }
    }

    func testWholeStreamAtOnce() throws {
        let expected = streamPackets
        var reader = PTPIPPacketReader()
        reader.append(expected.flatMap { $0.encoded() })
        var got: [PTPIPPacket] = []
        try drain(&reader, into: &got)
        XCTAssertEqual(got, expected)
        XCTAssertEqual(reader.bufferedByteCount, 0)
    }

    func testSplitAtEveryBytePosition() throws {
        let expected = streamPackets
        let stream = expected.flatMap { $0.encoded() }
        for split in 0...stream.count {
            var reader = PTPIPPacketReader()
            var got: [PTPIPPacket] = []
            reader.append(stream[..<split])
            try drain(&reader, into: &got)
            reader.append(stream[split...])
            try drain(&reader, into: &got)
            if got != expected {
                return XCTFail(
                    "split at \(split) of \(stream.count) decoded \(got.count) packets, differing from the \(expected.count) sent")
            }
            XCTAssertEqual(reader.bufferedByteCount, 0)
        }
    }

    func testOneByteAtATime() throws {
        let expected = streamPackets
        let stream = expected.flatMap { $0.encoded() }
        var reader = PTPIPPacketReader()
        var got: [PTPIPPacket] = []
        for byte in stream {
            reader.append([byte])
            try drain(&reader, into: &got)
        }
        XCTAssertEqual(got, expected)
    }

    func testRandomChunkingWithLargeDataPackets() throws {
        var rng = SeededRandom(seed: 7)
        let expected: [PTPIPPacket] = (0..<6).map { index in
            .data(transactionID: UInt32(index), payload: rng.bytes(200_000 + index))
        }
        let stream = expected.flatMap { $0.encoded() }
        var reader = PTPIPPacketReader()
        var got: [PTPIPPacket] = []
        var offset = 0
        while offset < stream.count {
            let end = min(stream.count, offset + 1 + rng.below(70_000))
            reader.append(stream[offset..<end])
            try drain(&reader, into: &got)
            offset = end
        }
        XCTAssertEqual(got, expected)
    }

    func testBytesNeededTracksTheNextPacket() throws {
        let bytes = PTPIPPacket.cancel(transactionID: 1).encoded()
        var reader = PTPIPPacketReader()
        XCTAssertEqual(reader.bytesNeeded, 8)
        reader.append(bytes.prefix(5))
        XCTAssertEqual(reader.bytesNeeded, 3)
        reader.append(bytes[5..<9])
        XCTAssertEqual(reader.bytesNeeded, 3)
        XCTAssertNil(try reader.nextPacket())
        reader.append(bytes[9...])
        XCTAssertEqual(try reader.nextPacket(), .cancel(transactionID: 1))
    }

    func testHostileLengthsAreRefusedAtTheHeader() {
        for length: UInt32 in [0, 7, 0xFFFF_FFFF] {
            var reader = PTPIPPacketReader()
            let header: [UInt8] = [
                UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
                UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24),
                10, 0, 0, 0,
            ]
            reader.append(header)
            let expected: PTPWireError =
                length < 8
                ? .lengthTooSmall(length)
                : .lengthTooLarge(length, limit: PTPIPPacketReader.defaultMaxPacketLength)
            XCTAssertThrowsError(try reader.nextPacket(), "length \(length)") { error in
                XCTAssertEqual(error as? PTPWireError, expected)
            }
            XCTAssertEqual(reader.bufferedByteCount, 8, "nothing beyond the header was buffered")
            reader.append([0, 0, 0, 0])
            XCTAssertThrowsError(try reader.nextPacket(), "framing stays broken") { error in
                XCTAssertEqual(error as? PTPWireError, expected)
            }
        }
    }

    func testConfiguredLimitIsEnforcedAndExactLimitAccepted() throws {
        let packet = PTPIPPacket.data(transactionID: 1, payload: Array(repeating: 1, count: 100))
        var exact = PTPIPPacketReader(maxPacketLength: 112)
        exact.append(packet.encoded())
        XCTAssertEqual(try exact.nextPacket(), packet)
        var tight = PTPIPPacketReader(maxPacketLength: 111)
        tight.append(packet.encoded().prefix(8))
        XCTAssertThrowsError(try tight.nextPacket()) { error in
            XCTAssertEqual(error as? PTPWireError, .lengthTooLarge(112, limit: 111))
        }
    }

    func testBadBodyIsSkippedSoTheStreamCanContinue() throws {
        var reader = PTPIPPacketReader()
        reader.append([9, 0, 0, 0, 99, 0, 0, 0, 0] + PTPIPPacket.probeResponse.encoded())
        XCTAssertThrowsError(try reader.nextPacket()) { error in
            XCTAssertEqual(error as? PTPWireError, .unknownPacketType(99))
        }
        XCTAssertEqual(try reader.nextPacket(), .probeResponse)
    }
}

final class PTPIPPacketReaderBoundsTests: XCTestCase {
    /// A caller that sizes its socket read with `bytesNeeded` must not be told to allocate what a
    /// hostile length field announces.
    func testBytesNeededNeverEchoesAHostileLength() {
        var reader = PTPIPPacketReader(maxPacketLength: 1 << 20)
        reader.append([0xFF, 0xFF, 0xFF, 0xFF, 0x0A, 0x00, 0x00, 0x00])
        XCTAssertEqual(reader.bytesNeeded, 0)
        XCTAssertThrowsError(try reader.nextPacket())
        var tiny = PTPIPPacketReader()
        tiny.append([0x03, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00])
        XCTAssertEqual(tiny.bytesNeeded, 0)
        var fine = PTPIPPacketReader()
        fine.append([0x10, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00])
        XCTAssertEqual(fine.bytesNeeded, 8)
    }
}
