import RelayCore
import XCTest

@testable import PTPWire

/// Seeded random and mutated inputs through every decoder: each must return a value or a
/// PTPWireError (a trap would abort the test run), and whatever decodes must re-encode to bytes
/// that decode to the same value. Failures print the seed to replay.
final class PTPWireFuzzTests: XCTestCase {
    private static let baseSeed: UInt64 = 0x5EED_0000_2026_1122
    private static let iterations = 8000

    private func forEachSeed(_ salt: UInt64, _ body: (inout SeededRandom, UInt64) throws -> Void) rethrows {
        for index in 0..<Self.iterations {
            let seed = Self.baseSeed ^ (salt << 32) &+ UInt64(index)
            var rng = SeededRandom(seed: seed)
            try body(&rng, seed)
        }
    }

    /// Returns whether the body decoded.
    @discardableResult
    private func checkPacket(type: UInt32, payload: [UInt8], seed: UInt64) -> Bool {
        guard let packet = try? PTPIPPacket.decode(type: type, payload: payload) else { return false }
        let again = packet.encoded()
        XCTAssertEqual(
            try? PTPIPPacket.decode(type: type, payload: Array(again.dropFirst(8))), packet,
            "seed \(seed): packet type \(type) did not survive re-encoding")
        return true
    }

    /// Returns how many decoders accepted the bytes.
    @discardableResult
    private func checkDatasets(_ bytes: [UInt8], seed: UInt64) -> Int {
        var accepted = 0
        if let info = try? PTPDeviceInfo(decoding: bytes) {
            XCTAssertEqual(try? PTPDeviceInfo(decoding: info.encoded()), info, "seed \(seed): DeviceInfo")
            accepted += 1
        }
        if let info = try? PTPStorageInfo(decoding: bytes) {
            XCTAssertEqual(try? PTPStorageInfo(decoding: info.encoded()), info, "seed \(seed): StorageInfo")
            accepted += 1
        }
        if let info = try? PTPObjectInfo(decoding: bytes) {
            XCTAssertEqual(try? PTPObjectInfo(decoding: info.encoded()), info, "seed \(seed): ObjectInfo")
            accepted += 1
        }
        if let list = try? NikonEventList(decoding: bytes) {
            XCTAssertEqual(try? NikonEventList(decoding: list.encoded()), list, "seed \(seed): Nikon events")
            accepted += 1
        }
        if let list = try? CanonEOSEventList.parse(bytes) {
            XCTAssertEqual(
                try? CanonEOSEventList.parse(CanonEOSEventList.encode(list.records)).records, list.records,
                "seed \(seed): Canon events")
            accepted += 1
        }
        return accepted
    }

    /// Feeds `stream` in random pieces to both readers; the stream reader's pieces go on to a data
    /// phase. Each stops at a framing error and skips body errors; neither may stall.
    private func checkReader(_ stream: [UInt8], rng: inout SeededRandom, seed: UInt64) {
        var reader = PTPIPPacketReader(maxPacketLength: rng.below(2) == 0 ? 4096 : PTPIPPacketReader.defaultMaxPacketLength)
        var streamReader = PTPIPStreamReader(maxControlPacketLength: 4096, policy: rng.below(2) == 0 ? .strict : .lenient)
        var phase = PTPIPDataPhase(transactionID: 5, maxLength: 4096)
        var offset = 0
        var framingBroken = (packet: false, stream: false)
        while offset < stream.count && !(framingBroken.packet && framingBroken.stream) {
            let end = min(stream.count, offset + 1 + rng.below(64))
            reader.append(stream[offset..<end])
            streamReader.append(stream[offset..<end])
            offset = end
            var steps = 0
            while steps <= stream.count && !framingBroken.packet {
                steps += 1
                do {
                    guard let packet = try reader.nextPacket() else { break }
                    XCTAssertGreaterThanOrEqual(packet.encoded().count, 8, "seed \(seed)")
                } catch .lengthTooSmall, .lengthTooLarge {
                    framingBroken.packet = true
                } catch {
                    continue
                }
            }
            XCTAssertLessThanOrEqual(steps, stream.count + 1, "seed \(seed): packet reader did not make progress")
            steps = 0
            while steps <= stream.count + 2 && !framingBroken.stream {
                steps += 1
                do {
                    guard let piece = try streamReader.next() else { break }
                    switch piece {
                    case .packet(.startData(let id, let total)): try phase.start(transactionID: id, totalLength: total)
                    case .packet: break
                    case .data(let data): try phase.accept(data)
                    }
                } catch .lengthTooSmall, .lengthTooLarge, .dataPacketTooShort {
                    framingBroken.stream = true
                } catch {
                    phase = PTPIPDataPhase(transactionID: 5, maxLength: 4096)
                }
            }
            XCTAssertLessThanOrEqual(steps, stream.count + 3, "seed \(seed): stream reader did not make progress")
        }
    }

    func testRandomPacketBodies() {
        forEachSeed(1) { rng, seed in
            let type = rng.below(4) == 0 ? rng.u32() : UInt32(rng.below(16))
            checkPacket(type: type, payload: rng.bytes(rng.below(80)), seed: seed)
        }
    }

    func testMutatedPackets() {
        let samples = Samples.packets.map { $0.encoded() }
        var decoded = 0
        forEachSeed(2) { rng, seed in
            let mutated = rng.mutate(samples[rng.below(samples.count)])
            if mutated.count >= 8 {
                let type = UInt32(mutated[4]) | UInt32(mutated[5]) << 8 | UInt32(mutated[6]) << 16 | UInt32(mutated[7]) << 24
                if checkPacket(type: type, payload: Array(mutated[8...]), seed: seed) { decoded += 1 }
            }
            checkReader(mutated, rng: &rng, seed: seed)
        }
        XCTAssertGreaterThan(decoded, Self.iterations / 20, "mutations should often stay decodable, else the fuzz is shallow")
    }

    func testRandomAndMutatedStreamsThroughTheReader() {
        let valid = Samples.packets.flatMap { $0.encoded() }
        forEachSeed(3) { rng, seed in
            let stream = rng.below(2) == 0 ? rng.bytes(rng.below(200)) : rng.mutate(valid)
            checkReader(stream, rng: &rng, seed: seed)
        }
    }

    func testRandomDatasetBytes() {
        forEachSeed(4) { rng, seed in
            checkDatasets(rng.bytes(rng.below(160)), seed: seed)
        }
    }

    func testMutatedDatasetsAndEventLists() throws {
        var samples = [
            Samples.deviceInfo.encoded(), Samples.storageInfo.encoded(), Samples.objectInfo.encoded(),
            CanonEOSEventList.encode(Samples.canonRecords),
            NikonEventList(events: [NikonEvent(code: .objectAdded, parameter: 1), NikonEvent(code: .storeFull, parameter: 2)]).encoded(),
        ]
        samples.append(try Fixtures.load("canon-eos/getevent-initial.bin"))
        var accepted = 0
        forEachSeed(5) { rng, seed in
            accepted += checkDatasets(rng.mutate(samples[rng.below(samples.count)]), seed: seed)
        }
        XCTAssertGreaterThan(accepted, Self.iterations / 20, "mutations should often stay decodable, else the fuzz is shallow")
    }

    func testRandomCanonRecordStreams() {
        // Plausible record headers with random sizes and known types, to reach the layout decoders.
        let types: [UInt32] = [0, 0xC181, 0xC1A7, 0xC186, 0xC1A9, 0xC187, 0xC189, 0xC18A, 0xC1A4]
        forEachSeed(6) { rng, seed in
            var writer = PTPDataWriter()
            for _ in 0..<(1 + rng.below(4)) {
                let size = rng.below(10) == 0 ? rng.u32() : UInt32(rng.below(64))
                writer.appendU32(size)
                writer.appendU32(types[rng.below(types.count)])
                writer.appendBytes(rng.bytes(max(0, min(Int(size), 64) - 8)))
            }
            checkDatasets(writer.bytes, seed: seed)
        }
    }
}
