/// Whether a RAW file is whole, by its structure: a camera's upload that was cut short must never
/// be delivered, and a RAW has no end marker to look for. Three families cover the bodies that
/// upload over FTP:
///
/// - TIFF-based (NEF, NRW, ARW, SR2, CR2, DNG, PEF, ORF, RW2, 3FR, SRW …): whole when every IFD
///   and every strip, tile and embedded JPEG it references lies inside the file. The IFDs followed are the chain from IFD0, SubIFDs (0x014A) and the
///   Exif IFD (0x8769). TIFF 6.0 gives the layout; ORF ("IIRO"/"IIRS") and RW2 ("IIU") differ
///   only in their magic number.
/// - ISO base media (CR3, HEIF): whole when its top-level boxes add up to the size.
/// - Fujifilm RAF: whole when the JPEG, CFA header and CFA regions its header points to
///   (big-endian offset/length pairs at bytes 84–107) lie inside the file.
///
/// Anything else, or a structure that does not parse (a file that is not what its name says),
/// is `unreadable`: the caller falls back to how the transfer ended.
public enum RAWStructure {
    public enum Verdict: Sendable, Equatable {
        case complete
        /// It references bytes beyond its end: cut short.
        case incomplete
        case unreadable
    }

    /// The verdict on a file of `size` bytes; `read(offset, count)` gives up to `count` bytes
    /// from `offset` (fewer at the end), nil when it cannot read.
    public static func verdict(size: Int64, read: (Int64, Int) -> [UInt8]?) -> Verdict {
        guard let head = read(0, 16), head.count >= 8 else { return .unreadable }
        if head[4..<8].elementsEqual("ftyp".utf8) { return isoMedia(size: size, read: read) }
        if head.count == 16, head.elementsEqual("FUJIFILMCCD-RAW ".utf8) { return raf(size: size, read: read) }
        if let order = TIFFReader.ByteOrder(head) {
            return withoutActuallyEscaping(read) { TIFFReader(order: order, size: size, read: $0).verdict(head) }
        }
        return .unreadable
    }

    /// ISO base media: box after box from the start; a box of size 0 runs to the end.
    static func isoMedia(size: Int64, read: (Int64, Int) -> [UInt8]?) -> Verdict {
        var position: Int64 = 0
        for _ in 0..<100_000 {
            if position == size { return .complete }
            guard let header = read(position, 16) else { return .unreadable }
            guard header.count >= 8 else { return .incomplete }
            var boxSize = Int64(bigEndian(header, 0, 4))
            var headerSize: Int64 = 8
            if boxSize == 1 {
                guard header.count >= 16 else { return .incomplete }
                guard let large = Int64(exactly: bigEndian(header, 8, 8)) else { return .unreadable }
                boxSize = large
                headerSize = 16
            } else if boxSize == 0 {
                return .complete
            }
            guard boxSize >= headerSize else { return .unreadable }
            let (end, overflow) = position.addingReportingOverflow(boxSize)
            if overflow || end > size { return .incomplete }
            position = end
        }
        return .unreadable
    }

    /// RAF: the regions its header points to.
    static func raf(size: Int64, read: (Int64, Int) -> [UInt8]?) -> Verdict {
        guard let header = read(0, 108) else { return .unreadable }
        guard header.count == 108 else { return .incomplete }
        var regions = 0
        for at in stride(from: 84, to: 108, by: 8) {
            let offset = Int64(bigEndian(header, at, 4))
            let length = Int64(bigEndian(header, at + 4, 4))
            guard length > 0 else { continue }
            regions += 1
            if offset + length > size { return .incomplete }
        }
        return regions > 0 ? .complete : .unreadable
    }

    static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        bytes[at..<(at + count)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// Follows a TIFF file's IFDs and the data they reference.
struct TIFFReader {
    enum ByteOrder {
        case little, big

        /// "II" or "MM" followed by one of the magic numbers of TIFF and the RAW formats built
        /// on it (42; ORF's 0x4F52 and 0x5352; RW2's 0x55).
        init?(_ head: [UInt8]) {
            switch (head[0], head[1]) {
            case (0x49, 0x49): self = .little
            case (0x4D, 0x4D): self = .big
            default: return nil
            }
            let magic = self == .little ? UInt16(head[2]) | UInt16(head[3]) << 8 : UInt16(head[2]) << 8 | UInt16(head[3])
            guard [42, 0x4F52, 0x5352, 0x55].contains(magic) else { return nil }
        }
    }

    let order: ByteOrder
    let size: Int64
    let read: (Int64, Int) -> [UInt8]?

    /// Bytes per value of each TIFF field type (1–13), nil for a type TIFF does not have.
    static func typeSize(_ type: UInt64) -> Int64? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// More than this many entries in one IFD, or IFDs in one file, is not a camera's file.
    static let maxEntries: UInt64 = 4096
    static let maxIFDs = 256
    /// Offsets and lengths read from one field: a camera's RAW has a few hundred strips at most.
    static let maxValues: UInt64 = 65_536

    /// StripOffsets, StripByteCounts, TileOffsets, TileByteCounts, JPEGInterchangeFormat and its
    /// length, SubIFDs, the Exif IFD.
    static let followed: Set<UInt64> = [0x0111, 0x0117, 0x0144, 0x0145, 0x0201, 0x0202, 0x014A, 0x8769]

    private struct Failure: Error {
        let verdict: RAWStructure.Verdict
    }

    func verdict(_ head: [UInt8]) -> RAWStructure.Verdict {
        do {
            var pending = [value(head, 4, 4)]
            var seen: Set<UInt64> = []
            while let offset = pending.popLast() {
                guard offset != 0, seen.insert(offset).inserted else { continue }
                guard seen.count <= Self.maxIFDs else { return .unreadable }
                pending += try ifd(at: Int64(offset), first: seen.count == 1)
            }
            return .complete
        } catch let failure as Failure {
            return failure.verdict
        } catch {
            return .unreadable
        }
    }

    /// Checks the IFD at `offset` and everything it references; returns the IFDs it points to.
    /// IFD0 must lie whole inside the file with every entry well formed (known types, tags in
    /// ascending order, as TIFF requires) before anything past the end counts as a cut: bytes
    /// that only begin like a TIFF are `unreadable`, never taken for a cut file kept for ever.
    private func ifd(at offset: Int64, first: Bool) throws -> [UInt64] {
        let table: [UInt8]
        let count: UInt64
        do {
            count = value(try bytes(at: offset, count: 2), 0, 2)
            guard count > 0, count <= Self.maxEntries else { throw Failure(verdict: .unreadable) }
            table = try bytes(at: offset + 2, count: Int(count) * 12 + 4)
        } catch let failure as Failure where first {
            throw Failure(verdict: failure.verdict == .incomplete ? .unreadable : failure.verdict)
        }
        var next: [UInt64] = [value(table, Int(count) * 12, 4)]
        var fields: [UInt64: [UInt64]] = [:]
        var previousTag: UInt64?
        for index in 0..<Int(count) {
            let entry = index * 12
            let tag = value(table, entry, 2)
            let type = value(table, entry + 2, 2)
            let valueCount = value(table, entry + 4, 4)
            guard let typeSize = Self.typeSize(type), previousTag.map({ $0 < tag }) ?? true else { throw Failure(verdict: .unreadable) }
            previousTag = tag
            let (length, overflow) = Int64(valueCount).multipliedReportingOverflow(by: typeSize)
            guard !overflow else { throw Failure(verdict: .unreadable) }
            // Only the fields that locate image data and IFDs are followed: a maker's private
            // field with an offset of its own meaning must not make a whole file look cut.
            guard Self.followed.contains(tag), [3, 4, 13].contains(type) else { continue }
            var data = Array(table[(entry + 8)..<(entry + 12)])
            if length > 4 {
                guard valueCount <= Self.maxValues else { throw Failure(verdict: .unreadable) }
                data = try bytes(at: Int64(value(table, entry + 8, 4)), count: Int(length))
            }
            let width = Int(typeSize)
            fields[tag] = (0..<Int(valueCount)).map { value(data, $0 * width, width) }
        }
        for (offsets, lengths) in [(0x0111, 0x0117), (0x0144, 0x0145), (0x0201, 0x0202)] as [(UInt64, UInt64)] {
            guard let starts = fields[offsets], let counts = fields[lengths] else { continue }
            for (start, length) in zip(starts, counts) { try within(Int64(start), Int64(length)) }
        }
        next += fields[0x014A] ?? []
        next += fields[0x8769] ?? []
        return next
    }

    /// A region that must lie inside the file.
    private func within(_ offset: Int64, _ length: Int64) throws {
        if offset + length > size { throw Failure(verdict: .incomplete) }
    }

    /// Exactly `count` bytes at `offset`; a region past the end means the file was cut.
    private func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
        try within(offset, Int64(count))
        guard let data = read(offset, count), data.count == count else { throw Failure(verdict: .unreadable) }
        return data
    }

    private func value(_ bytes: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
        let slice = bytes[at..<(at + width)]
        return order == .little ? slice.reversed().reduce(0) { $0 << 8 | UInt64($1) } : slice.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
