import RelayCore
import SSDPWire
import XCTest

/// Seeded mutations of real-shaped announcements and descriptions through the parsers: each
/// must return a value or an SSDPWireError, and what parses must parse again once re-encoded
/// (the property the libFuzzer targets `ssdp` and `description` check at scale).
final class SSDPFuzzTests: XCTestCase {
    private static let iterations = Int(ProcessInfo.processInfo.environment["SSDP_FUZZ_ITERATIONS"] ?? "") ?? 3000

    private static let answer = Array(
        """
        HTTP/1.1 200 OK\r\nLOCATION: http://10.0.0.5:49152/upnp/CameraDevDesc.xml\r\nST: \
        urn:schemas-canon-com:service:ICPO-WFTEOSSystemService:1\r\nUSN: uuid:1::upnp:rootdevice\r\n\r\n
        """.utf8)

    private static let description = UPnPDeviceDescription(
        friendlyName: "EOS <R5> & co", manufacturer: "Canon",
        modelName: "Canon EOS R5", serialNumber: "0123", udn: "uuid:1"
    ).encoded()

    /// `input` with 1–4 random byte edits, flips or cuts.
    private func mutate(_ input: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + Int(random.next() % 4)) where !bytes.isEmpty {
            let at = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 3 {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.removeSubrange(at...)
            default: bytes.insert(contentsOf: [13, 10, 58, 60, 38].shuffled(using: &random).prefix(2), at: at)
            }
        }
        return bytes
    }

    func testMutatedAnswersParseOrFailCleanly() {
        var random = SeededRandom(seed: 0x55D9_2026)
        var parsed = 0
        for index in 0..<Self.iterations {
            let bytes = mutate(Self.answer, &random)
            guard let message = try? SSDPMessage(parsing: bytes) else { continue }
            parsed += 1
            XCTAssertEqual((try? SSDPMessage(parsing: message.encoded()))?.kind, message.kind, "iteration \(index)")
        }
        XCTAssertGreaterThan(parsed, Self.iterations / 10, "mutations should often stay parseable, else the test is shallow")
    }

    func testMutatedDescriptionsParseOrFailCleanly() {
        var random = SeededRandom(seed: 0xDE5C_2026)
        var parsed = 0
        for index in 0..<Self.iterations {
            guard let description = try? UPnPDeviceDescription(parsing: mutate(Self.description, &random)) else { continue }
            parsed += 1
            XCTAssertNotNil(try? UPnPDeviceDescription(parsing: description.encoded()), "iteration \(index)")
        }
        XCTAssertGreaterThan(parsed, Self.iterations / 100, "mutations should often stay parseable, else the test is shallow")
    }
}
