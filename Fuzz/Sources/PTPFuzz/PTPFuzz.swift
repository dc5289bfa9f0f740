import FTPWire
import Foundation
import PTPWire
import PhotoMetadata
import SSDPWire

/// Which decoder this run fuzzes, from FUZZ_TARGET: packets (the PTP/IP packet and stream
/// readers), events (Canon EOS event lists, 0xC1B6/0xC1B8 records among them, read strictly and
/// as far as they are well formed; Nikon event lists; Sony's extended DeviceInfo), deviceinfo, objectinfo, ssdp (SSDP
/// answers and announcements from anything on the network), description (UPnP device
/// descriptions), ftp (the FTP receiver's control lines: command parser, line reader, paths),
/// jpeg and raw (the structure walkers that decide whether an upload is whole).
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
    case "ftp":
        fuzzFTP(bytes)
    case "jpeg":
        // Fed in two pieces, split where the first byte says, the verdict is the whole file's.
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % max(1, bytes.count)
        var walker = JPEGStructure()
        bytes[..<split].withUnsafeBytes { walker.feed($0) }
        bytes[split...].withUnsafeBytes { walker.feed($0) }
        precondition(walker.verdict == JPEGStructure.verdict(of: bytes))
    case "raw":
        // Any bytes (what a stranger on the venue network may upload as a RAW) give a verdict.
        _ = RAWStructure.verdict(size: Int64(bytes.count)) { offset, count in
            let start = Int(offset)
            return start > bytes.count ? [] : Array(bytes[start..<min(bytes.count, start + count)])
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

/// The bytes as an FTP client's control stream: every line through the command parser; what
/// parses keeps its meaning (addresses re-read the same, a resolved path resolves to itself, a
/// reply made from the line is as many lines on the wire as it has).
private func fuzzFTP(_ bytes: [UInt8]) {
    var reader = FTPLineReader(maxLineLength: 512)
    reader.append(bytes)
    while let line = try? reader.nextLine() {
        guard let command = try? FTPCommand(parsing: line) else { continue }
        switch command {
        case .port(let target):
            if let text = target.portArgument { precondition((try? FTPHostPort(portArgument: text)) == target) }
        case .eprt(let target):
            precondition((try? FTPHostPort(eprtArgument: target.eprtArgument)) == target)
        case .stor(let text), .cwd(let text), .appe(let text), .mkd(let text), .size(let text):
            if let path = try? FTPVirtualPath.resolve(text, from: .root) {
                precondition((try? FTPVirtualPath.resolve(path.description, from: .root)) == path)
            }
            let reply = FTPReply(550, lines: text.split(separator: " ").map(String.init))
            let wireLines = reply.encoded.filter { $0 == 0x0A }.count
            precondition(wireLines == reply.lines.count)
        default:
            _ = command.verb
        }
    }
}
