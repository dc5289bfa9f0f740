import Foundation
import PTPWire
import SSDPWire

/// Which decoder this run fuzzes, from FUZZ_TARGET: packets (the PTP/IP packet and stream
/// readers), events (Canon EOS event lists, 0xC1B6/0xC1B8 records among them, read strictly and
/// as far as they are well formed; Nikon event lists; Sony's extended DeviceInfo), deviceinfo, objectinfo, ssdp (SSDP
/// answers and announcements from anything on the network), description (UPnP device
/// descriptions).
private let target: String = {
    guard let raw = getenv("FUZZ_TARGET") else { return "packets" }
    return String(cString: raw)
}()

/// libFuzzer's entry point: any input must decode or throw a PTPWireError; a trap is a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    switch target {
    case "events":
        let lenient = CanonEOSEventList.parsePrefix(bytes)
        precondition(CanonEOSEventList.parsePrefix(CanonEOSEventList.encode(lenient.records)).records == lenient.records)
        _ = try? NikonEventList(decoding: bytes)
        _ = try? NikonEventList(decodingEx: bytes)
        if let extra = try? SonyExtDeviceInfo(decoding: bytes) {
            var info = PTPDeviceInfo(vendorExtensionID: .mtp, manufacturer: "Sony Corporation", model: "", deviceVersion: "", serialNumber: "")
            info.merge(extra)
        }
    case "deviceinfo":
        if let info = try? PTPDeviceInfo(decoding: bytes) { precondition((try? PTPDeviceInfo(decoding: info.encoded())) == info) }
    case "objectinfo":
        if let info = try? PTPObjectInfo(decoding: bytes) { precondition((try? PTPObjectInfo(decoding: info.encoded())) == info) }
    case "ssdp":
        if let message = try? SSDPMessage(parsing: bytes) {
            _ = CameraServiceType.of(message)
            precondition((try? SSDPMessage(parsing: message.encoded()))?.kind == message.kind)
        }
    case "description":
        if let description = try? UPnPDeviceDescription(parsing: bytes) {
            precondition((try? UPnPDeviceDescription(parsing: description.encoded())) != nil)
        }
    default:
        fuzzPackets(bytes)
    }
    return 0
}

/// The bytes as a camera's stream, split where the first byte says, through both readers.
private func fuzzPackets(_ bytes: [UInt8]) {
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % max(1, bytes.count)
    var packets = PTPIPPacketReader(maxPacketLength: 1 << 20)
    packets.append(bytes[..<split])
    packets.append(bytes[split...])
    while let packet = try? packets.nextPacket() { _ = packet.encoded() }
    var stream = PTPIPStreamReader()
    stream.append(bytes[..<split])
    while (try? stream.next()) != nil {}
    stream.append(bytes[split...])
    while (try? stream.next()) != nil {}
}

/// SwiftPM links an executable's entry point as `PTPFuzz_main`; libFuzzer's driver runs from it.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt) -> CInt

@_cdecl("PTPFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { start, size in fuzz(start, size) }
}
