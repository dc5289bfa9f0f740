import Foundation
import PTPWire

/// The EXIF a body writes into each JPEG at the shutter (an APP1 "Exif" segment, CIPA DC-008):
/// what a client can tell one photo from another by when the body describes nothing before the
/// download (a Nikon Z in "connect to computer" mode). Tags and where each vendor keeps them
/// follow exiftool's tag tables:
///
/// - IFD0: Make 0x010F, Model 0x0110, and the Exif IFD pointer 0x8769;
/// - Exif IFD: ExposureTime 0x829A, DateTimeOriginal 0x9003, SubSecTimeOriginal 0x9291 (Canon,
///   Nikon and Sony write hundredths), BodySerialNumber 0xA431 (not by Nikon);
/// - Nikon: big-endian ("MM") EXIF, and a type-3 maker note 0x927C ("Nikon\0", version 0x0210,
///   then a TIFF of its own) holding SerialNumber 0x001D and ShutterCount 0x00A7.
struct SimExif: Sendable {
    var make: String
    var model: String
    var serial: String
    var capturedAt: Date
    /// The frame's number since the body was new (Nikon's shutter count).
    var shutterCount: Int
    var exposureTime: ShutterSpeed?
    var nikonMakerNote: Bool

    /// The body of the APP1 segment: "Exif\0\0" and the TIFF structure.
    var segmentBody: [UInt8] {
        let bigEndian = nikonMakerNote
        var exif: [TIFFBuilder.Field] = []
        if let exposureTime {
            exif.append(.rational(0x829A, exposureTime.numerator, exposureTime.denominator))
        }
        let (stamp, hundredths) = Self.exifTime(capturedAt)
        exif.append(.ascii(0x9003, stamp))
        exif.append(.ascii(0x9291, hundredths))
        if nikonMakerNote {
            var note = Array("Nikon\0".utf8) + [0x02, 0x10, 0x00, 0x00]
            note += TIFFBuilder(bigEndian: true).tiff([
                .ascii(0x001D, serial), .long(0x00A7, UInt32(truncatingIfNeeded: shutterCount)),
            ])
            exif.append(.undefined(0x927C, note))
        } else {
            exif.append(.ascii(0xA431, serial))
        }
        let tiff = TIFFBuilder(bigEndian: bigEndian).tiff(
            [.ascii(0x010F, make), .ascii(0x0110, model)], exifDirectory: exif)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// "YYYY:MM:DD HH:MM:SS" in the body's (UTC) clock, and the hundredths.
    static func exifTime(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let stamp = String(
            format: "%04d:%02d:%02d %02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0, parts.second ?? 0)
        return (stamp, String(format: "%02d", (parts.nanosecond ?? 0) / 10_000_000))
    }
}

/// Writes a small TIFF structure: IFD0 and, optionally, an Exif IFD it points to; values longer
/// than 4 bytes follow the directories, at even offsets.
struct TIFFBuilder {
    enum Field {
        case ascii(UInt16, String)
        case long(UInt16, UInt32)
        case rational(UInt16, UInt32, UInt32)
        case undefined(UInt16, [UInt8])

        var tag: UInt16 {
            switch self {
            case .ascii(let tag, _), .long(let tag, _), .rational(let tag, _, _), .undefined(let tag, _): tag
            }
        }
    }

    let bigEndian: Bool

    func u16(_ value: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    func u32(_ value: UInt32) -> [UInt8] {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        return bigEndian ? bytes.reversed() : bytes
    }

    /// The whole structure, header first, offsets counted from it.
    func tiff(_ first: [Field], exifDirectory: [Field]? = nil) -> [UInt8] {
        let firstCount = first.count + (exifDirectory == nil ? 0 : 1)
        let firstSize = 2 + 12 * firstCount + 4
        let exifOffset = 8 + firstSize
        var out = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        var extra: [UInt8] = []
        var dataStart = exifOffset + (exifDirectory.map { 2 + 12 * $0.count + 4 } ?? 0)
        func directory(_ fields: [Field], pointer: UInt32?) -> [UInt8] {
            var entries: [(UInt16, [UInt8])] = []
            for field in fields {
                let (type, count, value) = encode(field)
                var entry = u16(type) + u32(count)
                if value.count <= 4 {
                    entry += value + [UInt8](repeating: 0, count: 4 - value.count)
                } else {
                    entry += u32(UInt32(dataStart + extra.count))
                    extra += value
                    if extra.count % 2 == 1 { extra.append(0) }
                }
                entries.append((field.tag, entry))
            }
            if let pointer { entries.append((0x8769, u16(4) + u32(1) + u32(pointer))) }
            entries.sort { $0.0 < $1.0 }
            return u16(UInt16(entries.count)) + entries.flatMap { u16($0.0) + $0.1 } + u32(0)
        }
        // Values of both directories go after both; the first directory's come first.
        let exifBytes: [UInt8]
        if let exifDirectory {
            let firstBytes = directory(first, pointer: UInt32(exifOffset))
            exifBytes = directory(exifDirectory, pointer: nil)
            out += firstBytes + exifBytes
        } else {
            dataStart = 8 + firstSize
            out += directory(first, pointer: nil)
        }
        return out + extra
    }

    private func encode(_ field: Field) -> (type: UInt16, count: UInt32, value: [UInt8]) {
        switch field {
        case .ascii(_, let text):
            let bytes = Array(text.utf8) + [0]
            return (2, UInt32(bytes.count), bytes)
        case .long(_, let value):
            return (4, 1, u32(value))
        case .rational(_, let numerator, let denominator):
            return (5, 1, u32(numerator) + u32(denominator))
        case .undefined(_, let bytes):
            return (7, UInt32(bytes.count), bytes)
        }
    }
}
