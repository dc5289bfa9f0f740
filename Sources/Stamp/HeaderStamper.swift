import Foundation
import PhotoMetadata

/// A photo's stamped head: what is sent in place of the first `skip` bytes of the file. Every
/// metadata segment sits before the pixels, so the rest of the file goes as the camera made it,
/// byte for byte, even while it is still being written (cut-through).
public struct StampedHeader: Sendable, Equatable {
    /// The new header: SOI and the application segments, stamped.
    public var prefix: [UInt8]
    /// How many bytes of the file it replaces (the camera's header).
    public var skip: Int64
    /// What the stamp did that a photographer may want to know (an EXIF field replaced).
    public var notes: [String]

    /// The body's size for a file of `fileSize` bytes.
    public func bodySize(fileSize: Int64) -> Int64 { fileSize - skip + Int64(prefix.count) }
}

/// Why a photo goes unstamped, as the camera made it.
public enum StampRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case notJPEG
    case corruptHeader(String)
    /// The stamp's IPTC would not fit in one APP13 segment (a template of a thousand keywords).
    case tooLarge

    public var description: String {
        switch self {
        case .notJPEG: "it is not a JPEG"
        case .corruptHeader(let why): "its header cannot be read: \(why)"
        case .tooLarge: "the stamp's IPTC would not fit in one JPEG segment (shorten the template's keywords or caption)"
        }
    }
}

/// Rewrites a JPEG's header with a stamp: XMP merged into the camera's packet (or added after
/// the EXIF block), IPTC IIM in APP13 with a fresh digest (the camera's other Photoshop
/// resources kept), the camera's conflicting EXIF text fields resolved in place
/// (``ExifStampConflicts``); every other segment as it was, in its place.
public enum HeaderStamper {
    /// How many bytes of the file's start `stamp` needs: the application segments whole. Nil
    /// when `head` holds them (or is not a JPEG, which `stamp` then refuses).
    public static func bytesNeeded(_ head: [UInt8]) -> Int? { JPEGSegments.bytesNeeded(head) }

    /// The stamped header for a file whose first bytes are `head` (at least its application
    /// segments, ``bytesNeeded(_:)``).
    public static func stamp(head: [UInt8], values: StampValues, timeZone: TimeZone = .current) -> Result<StampedHeader, StampRefusal> {
        guard head.starts(with: [0xFF, 0xD8]) else { return .failure(.notJPEG) }
        let segments: JPEGSegments
        do {
            segments = try JPEGSegments(head)
        } catch {
            return .failure(.corruptHeader(error.description))
        }
        var source = head
        var notes: [String] = []
        if let exif = segments.segments.first(where: { $0.kind == .exif }) {
            notes += ExifStampConflicts.resolve(&source, exif: exif, values: values)
        }
        let oldXMP = segments.segments.first { $0.kind == .xmp }
        let oldAPP13 = segments.segments.first { $0.kind == .iptc }
        var xmp: [UInt8]?
        do {
            let packet = oldXMP.map { source[$0.body].dropFirst(xmpSignature.count) }
            xmp = try XMPStamp.merged(packet, with: values, timeZone: timeZone)
        } catch {
            notes.append("XMP left as the camera wrote it: \(error)")
        }
        let oldResources = oldAPP13.map { source[$0.body] }
        guard
            let app13Body = PhotoshopResources.app13(
                iim: IPTCRecord.encode(values, keeping: oldResources.flatMap { PhotoshopResources.iim(in: $0) }, timeZone: timeZone),
                keeping: oldResources, digest: xmp != nil)
        else { return .failure(.tooLarge) }
        let app13 = JPEGSegments.segment(0xED, body: app13Body)
        let xmpSegment = xmp.map { JPEGSegments.segment(0xE1, body: xmpSignature + $0) }

        var prefix: [UInt8] = [0xFF, 0xD8]
        var wroteXMP = false
        var wroteIPTC = false
        func placeNew() {
            if !wroteXMP, let xmpSegment, oldXMP == nil { prefix += xmpSegment }
            wroteXMP = true
            if !wroteIPTC { prefix += app13 }
            wroteIPTC = true
        }
        let mpf = segments.segments.first { $0.kind == .multiPicture }
        var mpfInPrefix: Range<Int>?
        let anchor = segments.segments.last { $0.kind == .exif || $0.kind == .jfif }
        if anchor == nil { placeNew() }
        for segment in segments.segments {
            switch segment.kind {
            case .xmp where segment == oldXMP:
                prefix += xmpSegment ?? Array(source[segment.range])
            case .iptc:
                if !wroteIPTC { prefix += app13 }
                wroteIPTC = true
            default:
                if segment == mpf { mpfInPrefix = prefix.count..<(prefix.count + segment.range.count) }
                prefix += source[segment.range]
            }
            if segment == anchor { placeNew() }
        }
        if let mpf, let moved = mpfInPrefix {
            // The images the MPF segment points at moved with what changed after it.
            let delta = (prefix.count - moved.upperBound) - (segments.restStart - mpf.range.upperBound)
            var body = Array(prefix[(moved.lowerBound + 4)..<moved.upperBound])
            if MPFOffsets.shift(&body, by: delta) {
                prefix.replaceSubrange((moved.lowerBound + 4)..<moved.upperBound, with: body)
            } else {
                notes.append("its Multi-Picture segment could not be read: the images after the photo may not be found")
            }
        }
        return .success(StampedHeader(prefix: prefix, skip: Int64(segments.restStart), notes: notes))
    }

    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
}
