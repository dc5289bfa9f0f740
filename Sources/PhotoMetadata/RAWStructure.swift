/// Whether a RAW file is whole, by its structure: a camera's upload that was cut short must never
/// be delivered, and a RAW has no end marker to look for. Three families cover the bodies that
/// upload over FTP:
///
/// - TIFF-based (NEF, NRW, ARW, SR2, CR2, DNG, PEF, ORF, RW2, 3FR, SRW …): whole when every IFD
///   and every strip, tile and embedded JPEG it references lies inside the file. The IFDs
///   followed are the chain from IFD0, SubIFDs (0x014A) and the Exif IFD (0x8769). TIFF 6.0
///   gives the layout; ORF ("IIRO"/"IIRS") and RW2 ("IIU") differ only in their magic number.
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
        guard let header = TIFFDirectory(head[...], magic: { TIFFFile.magicNumbers.contains($0) }) else { return .unreadable }
        return withoutActuallyEscaping(read) { TIFFFile(order: header.order, size: size, read: $0).verdict(first: header.firstDirectory) }
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

/// Follows a TIFF file's IFDs and the data they reference, through ``TIFFDirectory``: each IFD
/// and each value outside its IFD is read from the file as a part of the structure.
struct TIFFFile {
    /// The magic numbers after "II" or "MM" of TIFF and the RAW formats built on it (42; ORF's
    /// 0x4F52 and 0x5352; RW2's 0x55).
    static let magicNumbers: Set<UInt16> = [42, 0x4F52, 0x5352, 0x55]

    let order: TIFFDirectory.ByteOrder
    let size: Int64
    let read: (Int64, Int) -> [UInt8]?

    /// More than this many entries in one IFD, or IFDs in one file, is not a camera's file.
    static let maxEntries = 4096
    static let maxIFDs = 256
    /// Offsets and lengths read from one field: a camera's RAW has a few hundred strips at most.
    static let maxValues: UInt32 = 65_536

    /// StripOffsets, StripByteCounts, TileOffsets, TileByteCounts, JPEGInterchangeFormat and its
    /// length, SubIFDs, the Exif IFD.
    static let followed: Set<UInt16> = [0x0111, 0x0117, 0x0144, 0x0145, 0x0201, 0x0202, 0x014A, 0x8769]

    private struct Failure: Error {
        let verdict: RAWStructure.Verdict
    }

    /// The verdict on the IFDs from the one at `first` (IFD0) on.
    func verdict(first: Int) -> RAWStructure.Verdict {
        do throws(Failure) {
            var pending = [first]
            var seen: Set<Int> = []
            while let offset = pending.popLast() {
                guard offset != 0, seen.insert(offset).inserted else { continue }
                guard seen.count <= Self.maxIFDs else { return .unreadable }
                pending += try ifd(at: offset, first: seen.count == 1)
            }
            return .complete
        } catch {
            return error.verdict
        }
    }

    /// Checks the IFD at `offset` and everything it references; returns the IFDs it points to.
    /// IFD0 must lie whole inside the file with every entry well formed (known types, tags in
    /// ascending order, as TIFF requires) before anything past the end counts as a cut: bytes
    /// that only begin like a TIFF are `unreadable`, never taken for a cut file kept for ever.
    private func ifd(at offset: Int, first: Bool) throws(Failure) -> [Int] {
        let table: TIFFDirectory
        do throws(Failure) {
            let count = try part(at: offset, count: 2).unsigned(at: offset, size: 2) ?? 0
            guard count > 0, count <= Self.maxEntries else { throw Failure(verdict: .unreadable) }
            table = try part(at: offset, count: 2 + Int(count) * 12 + 4)
        } catch {
            throw first && error.verdict == .incomplete ? Failure(verdict: .unreadable) : error
        }
        var fields: [UInt16: [UInt32]] = [:]
        var previousTag: UInt16?
        for entry in table.entries(at: offset, limit: Self.maxEntries) {
            guard TIFFDirectory.typeSize(entry.type) != nil, previousTag.map({ $0 < entry.tag }) ?? true else {
                throw Failure(verdict: .unreadable)
            }
            previousTag = entry.tag
            // Only the fields that locate image data and IFDs are followed: a maker's private
            // field with an offset of its own meaning must not make a whole file look cut.
            guard Self.followed.contains(entry.tag), [3, 4, 13].contains(entry.type), let range = entry.valueRange else { continue }
            var values = table
            if range.count > 4 {
                guard entry.count <= Self.maxValues else { throw Failure(verdict: .unreadable) }
                values = try part(at: range.lowerBound, count: range.count)
            }
            fields[entry.tag] = values.numbers(entry)
        }
        for (offsets, lengths) in [(0x0111, 0x0117), (0x0144, 0x0145), (0x0201, 0x0202)] as [(UInt16, UInt16)] {
            guard let starts = fields[offsets], let counts = fields[lengths] else { continue }
            for (start, length) in zip(starts, counts) { try within(Int(start), Int(length)) }
        }
        let pointed = (fields[0x014A] ?? []) + (fields[0x8769] ?? [])
        return [table.nextDirectory(at: offset) ?? 0] + pointed.map(Int.init)
    }

    /// A region that must lie inside the file.
    private func within(_ offset: Int, _ length: Int) throws(Failure) {
        if Int64(offset + length) > size { throw Failure(verdict: .incomplete) }
    }

    /// Exactly `count` bytes at `offset`, as a part of the structure; a region past the end means
    /// the file was cut.
    private func part(at offset: Int, count: Int) throws(Failure) -> TIFFDirectory {
        try within(offset, count)
        guard let data = read(Int64(offset), count), data.count == count else { throw Failure(verdict: .unreadable) }
        return TIFFDirectory(part: data[...], at: offset, order: order)
    }
}
