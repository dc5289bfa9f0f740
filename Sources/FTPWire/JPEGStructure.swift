#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a received JPEG is whole, judged by its structure rather than by its last bytes:
/// from SOI, each segment is skipped by its length, each scan's entropy-coded data is read to
/// the marker that ends it, and the primary image is complete at its EOI. Whatever follows the
/// EOI (a vendor trailer such as Samsung's SEFH…SEFT, the further images of a multi-picture
/// file, padding) is part of the file as sent and does not matter; a thumbnail's own EOI inside
/// an APP1 segment is skipped with its segment.
///
/// Fed the file in pieces of any size (`feed`), so that a 50 MB upload is read once, together
/// with its digest. Segment layout after ITU-T T.81 (ISO/IEC 10918-1) annex B: markers are FF
/// followed by a code; RSTn, TEM, SOI and EOI stand alone, every other marker has a two-byte
/// length that counts itself; in entropy-coded data a data byte FF is followed by 00, and FF
/// followed by D0–D7 is a restart marker.
public struct JPEGStructure: Sendable {
    public enum Verdict: Equatable, Sendable {
        /// The primary image ends (EOI after a frame and at least one scan).
        case complete
        /// The structure is sound so far and the image has not ended: the file is cut short.
        case incomplete
        /// Not a JPEG structure relay can follow (no SOI, a segment that is not one): judge
        /// the file some other way.
        case unreadable
    }

    private enum State: Sendable {
        /// Bytes of the leading FF D8 seen so far.
        case start(Int)
        /// A marker's FF is expected.
        case marker
        /// A marker's code is expected (FF fill bytes may come first).
        case code
        case lengthHigh
        case lengthLow(UInt8)
        /// Bytes of the current segment still to skip.
        case skip(Int)
        /// Entropy-coded data of a scan.
        case entropy
        /// An FF in entropy-coded data: the next byte says what it was.
        case entropyFF
        case done
        case invalid
    }

    private var state = State.start(0)
    private var segment: UInt8 = 0
    private var sawFrame = false
    private var sawScan = false

    public init() {}

    public var verdict: Verdict {
        switch state {
        case .done: .complete
        case .invalid: .unreadable
        default: .incomplete
        }
    }

    /// Reads the next piece of the file.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let count = bytes.count
        var i = 0
        while i < count {
            switch state {
            case .done, .invalid:
                return
            case .skip(let left):
                let step = min(left, count - i)
                i += step
                if step == left { endSegment() } else { state = .skip(left - step) }
                continue
            case .entropy:
                // The FF that ends or interrupts the data; everything before it is image data.
                guard let found = memchr(base + i, 0xFF, count - i) else { return }
                i = base.distance(to: UnsafeRawPointer(found)) + 1
                state = .entropyFF
                continue
            default:
                step(bytes[i])
                i += 1
            }
        }
    }

    /// Reads one byte in a state that looks at bytes one at a time.
    private mutating func step(_ byte: UInt8) {
        switch state {
        case .start(let seen):
            let expected: UInt8 = seen == 0 ? 0xFF : 0xD8
            guard byte == expected else {
                state = .invalid
                return
            }
            state = seen == 0 ? .start(1) : .marker
        case .marker:
            state = byte == 0xFF ? .code : .invalid
        case .code:
            code(byte)
        case .lengthHigh:
            state = .lengthLow(byte)
        case .lengthLow(let high):
            let length = Int(high) << 8 | Int(byte)
            guard length >= 2 else {
                state = .invalid
                return
            }
            if length == 2 { endSegment() } else { state = .skip(length - 2) }
        case .entropyFF:
            switch byte {
            case 0x00, 0xD0...0xD7: state = .entropy
            case 0xFF: break
            default: code(byte)
            }
        case .skip, .entropy, .done, .invalid:
            break
        }
    }

    /// A marker's code, at the top level or ending a scan's data.
    private mutating func code(_ byte: UInt8) {
        switch byte {
        case 0xFF:
            state = .code
        case 0xD9:
            state = sawFrame && sawScan ? .done : .invalid
        case 0x00, 0xD8:
            state = .invalid
        case 0x01, 0xD0...0xD7:
            state = .marker
        case 0xDA:
            guard sawFrame else {
                state = .invalid
                return
            }
            segment = byte
            state = .lengthHigh
        default:
            // SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(byte) && ![0xC4, 0xC8, 0xCC].contains(byte) { sawFrame = true }
            segment = byte
            state = .lengthHigh
        }
    }

    private mutating func endSegment() {
        if segment == 0xDA {
            sawScan = true
            state = .entropy
        } else {
            state = .marker
        }
    }
}

extension JPEGStructure {
    /// The verdict on a whole file in memory.
    public static func verdict(of bytes: [UInt8]) -> Verdict {
        var structure = JPEGStructure()
        bytes.withUnsafeBytes { structure.feed($0) }
        return structure.verdict
    }
}
