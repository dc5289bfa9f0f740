/// The application segments at the head of a JPEG file (APP0–APP15 and comments, up to the
/// first table or frame marker): where cameras and editors keep EXIF, XMP, the ICC profile and
/// IPTC. The rendition's encoder writes fresh pixel data; these segments are carried over.
public struct JPEGSegments: Sendable {
    public enum Kind: Equatable, Sendable {
        case jfif, exif, xmp, extendedXMP, icc, iptc, multiPicture, other
    }

    public struct Segment: Equatable, Sendable {
        public var marker: UInt8
        public var kind: Kind
        /// The whole segment: marker, length and body.
        public var range: Range<Int>
        /// The body, after the two length bytes.
        public var body: Range<Int>
    }

    public private(set) var segments: [Segment] = []
    /// Where the first segment that is not an application segment starts.
    public private(set) var restStart: Int

    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case notJPEG
        case truncated(at: Int)

        public var description: String {
            switch self {
            case .notJPEG: "it does not start like a JPEG (no FF D8)"
            case .truncated(let offset): "its header segments are cut off or corrupt at byte \(offset)"
            }
        }
    }

    public init<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) throws(ParseError) where Bytes.Index == Int {
        guard bytes.count >= 4, bytes[bytes.startIndex] == 0xFF, bytes[bytes.startIndex + 1] == 0xD8 else { throw .notJPEG }
        var segments: [Segment] = []
        switch Self.scan(bytes, into: &segments) {
        case .rest(let start): restStart = start
        case .cut(let offset): throw .truncated(at: offset)
        }
        self.segments = segments
    }

    /// The whole application segments at the head of `bytes`, which may be only the first part
    /// of a file (the identity of a photo is read from its first 64 KB): a segment cut off at
    /// the end of what was read, and any after it, are left out.
    public static func leadingSegments<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> [Segment]
    where Bytes.Index == Int {
        var segments: [Segment] = []
        guard bytes.count >= 4, bytes[bytes.startIndex] == 0xFF, bytes[bytes.startIndex + 1] == 0xD8 else { return [] }
        _ = scan(bytes, into: &segments)
        return segments
    }

    /// Where a scan of the application segments stopped.
    private enum ScanEnd {
        /// At the first segment that is not an application segment.
        case rest(Int)
        /// At bytes that end or break off there.
        case cut(Int)
    }

    private static func scan<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, into segments: inout [Segment]) -> ScanEnd
    where Bytes.Index == Int {
        let limit = bytes.startIndex + bytes.count
        var i = bytes.startIndex + 2
        while true {
            guard i + 1 < limit, bytes[i] == 0xFF else { return .cut(i) }
            var m = i + 1
            while m < limit && bytes[m] == 0xFF { m += 1 }  // fill bytes
            guard m < limit else { return .cut(i) }
            let marker = bytes[m]
            guard (0xE0...0xEF).contains(marker) || marker == 0xFE else { return .rest(i) }
            guard m + 2 < limit else { return .cut(i) }
            let length = Int(bytes[m + 1]) << 8 | Int(bytes[m + 2])
            let end = m + 1 + length
            guard length >= 2, end <= limit else { return .cut(i) }
            let body = (m + 3)..<end
            segments.append(Segment(marker: marker, kind: kind(marker, bytes[body]), range: i..<end, body: body))
            i = end
        }
    }

    /// How many bytes of the file the application segments need when `head` (its first bytes)
    /// cuts one off: the end of that segment, or 4 bytes past where the cut one starts when its
    /// length is not read yet. Nil when they all end within `head`, or it is not a JPEG.
    public static func bytesNeeded<Bytes: RandomAccessCollection<UInt8>>(_ head: Bytes) -> Int? where Bytes.Index == Int {
        guard head.count >= 4, head[head.startIndex] == 0xFF, head[head.startIndex + 1] == 0xD8 else { return nil }
        var segments: [Segment] = []
        guard case .cut(let at) = scan(head, into: &segments) else { return nil }
        let base = head.startIndex
        guard at + 3 < base + head.count else { return at - base + 4 }
        guard head[at] == 0xFF, head[at + 1] != 0xFF else { return nil }
        let length = Int(head[at + 2]) << 8 | Int(head[at + 3])
        return length >= 2 ? at - base + 2 + length : nil
    }

    static let signatures: [(UInt8, [UInt8], Kind)] = [
        (0xE0, Array("JFIF\0".utf8), .jfif),
        (0xE1, Array("Exif\0\0".utf8), .exif),
        (0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8), .xmp),
        (0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8), .extendedXMP),
        (0xE2, Array("ICC_PROFILE\0".utf8), .icc),
        (0xE2, Array("MPF\0".utf8), .multiPicture),
        (0xED, Array("Photoshop 3.0\0".utf8), .iptc),
    ]

    static func kind(_ marker: UInt8, _ body: some Collection<UInt8>) -> Kind {
        signatures.first { $0.0 == marker && body.starts(with: $0.1) }?.2 ?? .other
    }

    /// Length of the "Exif\0\0" signature before the TIFF structure.
    public static let exifSignatureLength = 6

    /// The most a segment's body holds: its length field counts itself (two bytes) up to 65,535.
    public static let maximumBody = 65_533

    /// A JPEG segment with `marker` around `body` (at most ``maximumBody`` bytes).
    public static func segment(_ marker: UInt8, body: some Collection<UInt8>) -> [UInt8] {
        let length = body.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }
}
