import RelayCore
import XCTest

@testable import PTPWire

final class PTPIPStreamReaderTests: XCTestCase {
    /// What a client receives in one exchange: a response, a data phase split Canon-style and
    /// Nikon-style, an event and a probe.
    private var streamPackets: [PTPIPPacket] {
        var rng = SeededRandom(seed: 9)
        let big = rng.bytes(5000)
        return [
            .operationResponse(PTPOperationResponse(code: .ok, transactionID: 1)),
            .startData(transactionID: 2, totalLength: UInt64(big.count)),
            .data(transactionID: 2, payload: Array(big[..<3000])),
            .data(transactionID: 2, payload: Array(big[3000...])),
            .endData(transactionID: 2, payload: []),
            .operationResponse(PTPOperationResponse(code: .ok, transactionID: 2)),
            .startData(transactionID: 3, totalLength: 7),
            .endData(transactionID: 3, payload: [1, 2, 3, 4, 5, 6, 7]),
            .operationResponse(PTPOperationResponse(code: .ok, transactionID: 3, parameters: [7])),
            .event(PTPEvent(code: .objectAdded, parameters: [0x1001])),
            .probeRequest,
        ]
    }

    /// Pieces joined back into packets: data pieces of one packet are concatenated.
    private func packets(from pieces: [PTPIPStreamReader.Piece]) -> [PTPIPPacket] {
        var result: [PTPIPPacket] = []
        var payload: [UInt8] = []
        for piece in pieces {
            switch piece {
            case .packet(let packet):
                result.append(packet)
            case .data(let data):
                payload += data.bytes
                if data.endsPacket {
                    result.append(
                        data.isEndData
                            ? .endData(transactionID: data.transactionID, payload: payload)
                            : .data(transactionID: data.transactionID, payload: payload))
                    payload = []
                }
            }
        }
        return result
    }

    private func drain(_ reader: inout PTPIPStreamReader, into pieces: inout [PTPIPStreamReader.Piece]) throws {
        while let piece = try reader.next() { pieces.append(piece) }
    }

    func testSplitAtEveryBytePositionGivesTheSamePackets() throws {
        let expected = streamPackets
        let stream = expected.flatMap { $0.encoded() }
        for split in 0...stream.count {
            var reader = PTPIPStreamReader()
            var pieces: [PTPIPStreamReader.Piece] = []
            reader.append(stream[..<split])
            try drain(&reader, into: &pieces)
            reader.append(stream[split...])
            try drain(&reader, into: &pieces)
            if packets(from: pieces) != expected {
                return XCTFail("split at \(split) of \(stream.count) gave other packets")
            }
            XCTAssertEqual(reader.bufferedByteCount, 0)
        }
    }

    func testRandomSplitsAndSuggestedReadLengthsNeverOvershootAPacket() throws {
        let expected = streamPackets
        let stream = expected.flatMap { $0.encoded() }
        var rng = SeededRandom(seed: 3)
        for _ in 0..<200 {
            var reader = PTPIPStreamReader()
            var pieces: [PTPIPStreamReader.Piece] = []
            var offset = 0
            while offset < stream.count {
                // A socket read of at most what the reader asks for, sometimes less.
                let wanted = reader.suggestedReadLength
                XCTAssertGreaterThan(wanted, 0)
                let count = min(stream.count - offset, rng.below(2) == 0 ? wanted : 1 + rng.below(wanted))
                reader.append(stream[offset..<(offset + count)])
                offset += count
                try drain(&reader, into: &pieces)
            }
            XCTAssertEqual(packets(from: pieces), expected)
        }
    }

    func testDataPayloadIsHandedOutBeforeThePacketIsComplete() throws {
        let payload = [UInt8](repeating: 0xAB, count: 100_000)
        let packet = PTPIPPacket.endData(transactionID: 5, payload: payload).encoded()
        var reader = PTPIPStreamReader()
        reader.append(packet[..<40_012])
        guard case .data(let first)? = try reader.next() else { return XCTFail("expected payload") }
        XCTAssertEqual(first.bytes.count, 40_000)
        XCTAssertFalse(first.endsPacket)
        XCTAssertEqual(reader.bufferedByteCount, 0, "the reader keeps nothing it handed out")
        XCTAssertNil(try reader.next())
        XCTAssertEqual(reader.suggestedReadLength, 60_000)
        reader.append(packet[40_012...])
        guard case .data(let rest)? = try reader.next() else { return XCTFail("expected payload") }
        XCTAssertEqual(rest.bytes.count, 60_000)
        XCTAssertTrue(rest.endsPacket)
        XCTAssertTrue(rest.isEndData)
    }

    func testEmptyEndDataYieldsOneEmptyFinalPiece() throws {
        var reader = PTPIPStreamReader()
        reader.append(PTPIPPacket.endData(transactionID: 8, payload: []).encoded())
        XCTAssertEqual(try reader.next(), .data(.init(transactionID: 8, isEndData: true, bytes: [], endsPacket: true)))
        XCTAssertNil(try reader.next())
    }

    func testHostileLengthsBreakTheFramingWithoutBuffering() {
        var reader = PTPIPStreamReader(maxControlPacketLength: 1000)
        reader.append([0xFF, 0xFF, 0xFF, 0x7F, 7, 0, 0, 0])
        XCTAssertThrowsError(try reader.next()) { error in
            XCTAssertEqual(error as? PTPWireError, .lengthTooLarge(0x7FFF_FFFF, limit: 1000))
        }
        XCTAssertThrowsError(try reader.next(), "the reader stays failed")

        var small = PTPIPStreamReader()
        small.append([4, 0, 0, 0, 7, 0, 0, 0])
        XCTAssertThrowsError(try small.next()) { error in
            XCTAssertEqual(error as? PTPWireError, .lengthTooSmall(4))
        }
        var shortData = PTPIPStreamReader()
        shortData.append([10, 0, 0, 0, 10, 0, 0, 0, 1, 2])
        XCTAssertThrowsError(try shortData.next()) { error in
            XCTAssertEqual(error as? PTPWireError, .dataPacketTooShort(10))
        }
    }

    func testLenientDecodingDropsLeftoverParameterBytesAsLibgphoto2Does() throws {
        // An OperationResponse with 2 stray bytes after one parameter, and one with six parameters.
        var reader = PTPIPStreamReader()
        reader.append([20, 0, 0, 0, 7, 0, 0, 0, 0x01, 0x20, 3, 0, 0, 0, 9, 0, 0, 0, 0xAA, 0xBB])
        XCTAssertEqual(try reader.next(), .packet(.operationResponse(PTPOperationResponse(code: .ok, transactionID: 3, parameters: [9]))))
        var six = PTPDataWriter()
        six.appendU32(UInt32(14 + 24))
        six.appendU32(7)
        six.appendU16(0x2001)
        six.appendU32(4)
        for value in 1...6 { six.appendU32(UInt32(value)) }
        reader.append(six.bytes)
        XCTAssertEqual(
            try reader.next(), .packet(.operationResponse(PTPOperationResponse(code: .ok, transactionID: 4, parameters: [1, 2, 3, 4, 5]))))

        var strict = PTPIPStreamReader(policy: .strict)
        strict.append([20, 0, 0, 0, 7, 0, 0, 0, 0x01, 0x20, 3, 0, 0, 0, 9, 0, 0, 0, 0xAA, 0xBB])
        XCTAssertThrowsError(try strict.next()) { error in
            XCTAssertEqual(error as? PTPWireError, .misalignedParameters(byteCount: 6))
        }
        strict.append(PTPIPPacket.probeRequest.encoded())
        XCTAssertEqual(try strict.next(), .packet(.probeRequest), "a body error skips only that packet")
    }
}

final class PTPIPDataPhaseTests: XCTestCase {
    /// Runs `packets` through a stream reader into a data phase; returns the payload once the
    /// phase finished.
    private func collect(_ packets: [PTPIPPacket], transactionID: UInt32 = 4, maxLength: Int = 1 << 20) throws -> [UInt8]? {
        var reader = PTPIPStreamReader()
        reader.append(packets.flatMap { $0.encoded() })
        var phase = PTPIPDataPhase(transactionID: transactionID, maxLength: maxLength)
        var payload: [UInt8] = []
        while let piece = try reader.next() {
            switch piece {
            case .packet(.startData(let id, let total)):
                try phase.start(transactionID: id, totalLength: total)
            case .packet(let other):
                throw phase.unexpected(other.type)
            case .data(let data):
                try phase.accept(data)
                payload += data.bytes
            }
        }
        return phase.isFinished ? payload : nil
    }

    func testEveryVendorSplitGivesTheSamePayload() throws {
        let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for chunk in [1, 7, 999, 1000, 5000] {
            XCTAssertEqual(try collect(PTPIPPacket.dataPhase(transactionID: 4, payload: payload, chunkSize: chunk)), payload)
        }
        // Canon style: Data packets, then an empty EndData.
        XCTAssertEqual(
            try collect([
                .startData(transactionID: 4, totalLength: 1000),
                .data(transactionID: 4, payload: Array(payload[..<600])),
                .data(transactionID: 4, payload: Array(payload[600...])),
                .endData(transactionID: 4, payload: []),
            ]), payload)
        // Unknown total.
        XCTAssertEqual(
            try collect([
                .startData(transactionID: 4, totalLength: PTPIPPacket.unknownTotalLength),
                .endData(transactionID: 4, payload: [1, 2]),
            ]), [1, 2])
    }

    func testOrderAndTransactionAreChecked() {
        XCTAssertThrowsError(try collect([.data(transactionID: 4, payload: [1])])) { error in
            XCTAssertEqual(error as? PTPWireError, .unexpectedPacket(expected: "StartData", got: .data))
        }
        XCTAssertThrowsError(try collect([.startData(transactionID: 5, totalLength: 1)])) { error in
            XCTAssertEqual(error as? PTPWireError, .transactionMismatch(expected: 4, got: 5))
        }
        XCTAssertThrowsError(try collect([.startData(transactionID: 4, totalLength: 1), .probeRequest])) { error in
            XCTAssertEqual(error as? PTPWireError, .unexpectedPacket(expected: "Data or EndData", got: .probeRequest))
        }
        XCTAssertThrowsError(try collect([.startData(transactionID: 4, totalLength: 2), .data(transactionID: 9, payload: [1])])) { error in
            XCTAssertEqual(error as? PTPWireError, .transactionMismatch(expected: 4, got: 9))
        }
        XCTAssertThrowsError(
            try collect([
                .startData(transactionID: 4, totalLength: 0), .endData(transactionID: 4, payload: []),
                .endData(transactionID: 4, payload: []),
            ])
        ) { error in
            XCTAssertEqual(error as? PTPWireError, .unexpectedPacket(expected: "no packet after EndData", got: .endData))
        }
    }

    func testLengthsAreChecked() {
        XCTAssertThrowsError(try collect([.startData(transactionID: 4, totalLength: 101)], maxLength: 100)) { error in
            XCTAssertEqual(error as? PTPWireError, .dataPhaseTooLarge(length: 101, limit: 100))
        }
        XCTAssertThrowsError(
            try collect(
                [
                    .startData(transactionID: 4, totalLength: PTPIPPacket.unknownTotalLength),
                    .data(transactionID: 4, payload: Array(repeating: 0, count: 101)),
                ], maxLength: 100)
        ) { error in
            XCTAssertEqual(error as? PTPWireError, .dataPhaseTooLarge(length: 101, limit: 100))
        }
        XCTAssertThrowsError(
            try collect([
                .startData(transactionID: 4, totalLength: 3),
                .data(transactionID: 4, payload: [1, 2, 3, 4]),
            ])
        ) { error in
            XCTAssertEqual(error as? PTPWireError, .dataLengthMismatch(declared: 3, received: 4))
        }
        XCTAssertThrowsError(
            try collect([
                .startData(transactionID: 4, totalLength: 3),
                .endData(transactionID: 4, payload: [1, 2]),
            ])
        ) { error in
            XCTAssertEqual(error as? PTPWireError, .dataLengthMismatch(declared: 3, received: 2))
        }
    }
}
