import XCTest
@testable import PTPWire

final class PTPIPDataPhaseAssemblerTests: XCTestCase {
    private func assemble(_ packets: [PTPIPPacket], transactionID: UInt32 = 4, maxLength: Int = 1 << 20) throws -> [UInt8]? {
        var assembler = PTPIPDataPhaseAssembler(transactionID: transactionID, maxLength: maxLength)
        var result: [UInt8]?
        for packet in packets {
            XCTAssertNil(result, "payload returned before the last packet")
            result = try assembler.accept(packet)
        }
        return result
    }

    func testEveryVendorSplitGivesTheSamePayload() throws {
        let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for chunk in [1, 7, 999, 1000, 5000] {
            XCTAssertEqual(try assemble(PTPIPPacket.dataPhase(transactionID: 4, payload: payload, chunkSize: chunk)), payload)
        }
        // Canon style: Data packets, then an empty EndData.
        XCTAssertEqual(try assemble([.startData(transactionID: 4, totalLength: 1000),
                                     .data(transactionID: 4, payload: Array(payload[..<600])),
                                     .data(transactionID: 4, payload: Array(payload[600...])),
                                     .endData(transactionID: 4, payload: [])]), payload)
        // Unknown total.
        XCTAssertEqual(try assemble([.startData(transactionID: 4, totalLength: PTPIPPacket.unknownTotalLength),
                                     .endData(transactionID: 4, payload: [1, 2])]), [1, 2])
    }

    func testOrderAndTransactionAreChecked() {
        XCTAssertThrowsError(try assemble([.data(transactionID: 4, payload: [1])])) { error in
            XCTAssertEqual(error as? PTPWireError, .unexpectedPacket(expected: "StartData", got: .data))
        }
        XCTAssertThrowsError(try assemble([.startData(transactionID: 5, totalLength: 1)])) { error in
            XCTAssertEqual(error as? PTPWireError, .transactionMismatch(expected: 4, got: 5))
        }
        XCTAssertThrowsError(try assemble([.startData(transactionID: 4, totalLength: 1), .probeRequest])) { error in
            XCTAssertEqual(error as? PTPWireError, .unexpectedPacket(expected: "Data or EndData", got: .probeRequest))
        }
        var finished = PTPIPDataPhaseAssembler(transactionID: 4, maxLength: 10)
        XCTAssertNil(try finished.accept(.startData(transactionID: 4, totalLength: 0)))
        XCTAssertEqual(try finished.accept(.endData(transactionID: 4, payload: [])), [])
        XCTAssertThrowsError(try finished.accept(.endData(transactionID: 4, payload: []))) { error in
            XCTAssertEqual(error as? PTPWireError, .unexpectedPacket(expected: "no packet after EndData", got: .endData))
        }
    }

    func testLengthsAreChecked() {
        XCTAssertThrowsError(try assemble([.startData(transactionID: 4, totalLength: 101)], maxLength: 100)) { error in
            XCTAssertEqual(error as? PTPWireError, .dataPhaseTooLarge(length: 101, limit: 100))
        }
        XCTAssertThrowsError(try assemble([.startData(transactionID: 4, totalLength: PTPIPPacket.unknownTotalLength),
                                           .data(transactionID: 4, payload: Array(repeating: 0, count: 101))], maxLength: 100)) { error in
            XCTAssertEqual(error as? PTPWireError, .dataPhaseTooLarge(length: 101, limit: 100))
        }
        XCTAssertThrowsError(try assemble([.startData(transactionID: 4, totalLength: 3),
                                           .data(transactionID: 4, payload: [1, 2, 3, 4])])) { error in
            XCTAssertEqual(error as? PTPWireError, .dataLengthMismatch(declared: 3, received: 4))
        }
        XCTAssertThrowsError(try assemble([.startData(transactionID: 4, totalLength: 3),
                                           .endData(transactionID: 4, payload: [1, 2])])) { error in
            XCTAssertEqual(error as? PTPWireError, .dataLengthMismatch(declared: 3, received: 2))
        }
    }
}
