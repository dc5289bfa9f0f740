import Foundation

/// A seen key (or file name) as 128 bits: what a seen-log keeps in memory, so that a season of
/// photos (200,000 of them) costs a few megabytes, not a set of strings. Two FNV-1a passes with
/// different offset bases; not for security, only to spread keys and never confuse two of them.
struct SeenDigest: Hashable, Comparable, Sendable {
    var high: UInt64
    var low: UInt64

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    init(_ text: String) {
        var high: UInt64 = 0xcbf2_9ce4_8422_2325
        var low: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in text.utf8 {
            high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            low = (low << 7) | (low >> 57)
        }
        self.init(high: high, low: low)
    }

    static func < (lhs: SeenDigest, rhs: SeenDigest) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

/// A set of digests in two parts: a sorted array read from the log's index (compact, searched in
/// O(log n)) and a small set of what was added since.
struct SeenDigestSet: Sendable {
    private(set) var sorted: [SeenDigest] = []
    private(set) var recent: Set<SeenDigest> = []

    var count: Int { sorted.count + recent.count }

    func contains(_ digest: SeenDigest) -> Bool {
        if recent.contains(digest) { return true }
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < digest { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == digest
    }

    mutating func insert(_ digest: SeenDigest) {
        if !contains(digest) { recent.insert(digest) }
    }

    /// Every digest sorted, the recent ones merged in (for the index).
    mutating func compact() {
        guard !recent.isEmpty else { return }
        sorted = (sorted + recent).sorted()
        recent = []
    }

    init() {}

    init(sorted: [SeenDigest]) {
        self.sorted = sorted
    }
}

/// The index beside a seen-log (`NAME.jsonl.idx`): the digests of its keys and files up to a byte
/// offset of the log, so that a start reads 16 bytes a photo and parses only the lines after it.
/// The log stays the record: an index that does not match it (its bytes before the offset
/// differ, it is cut or from another version) is ignored and made again.
enum SeenIndex {
    static let magic = Array("RELAYSX1".utf8)
    /// How many bytes before the offset the index's check covers.
    static let checkedBytes = 4096

    struct Contents {
        var offset: Int
        var keys: [SeenDigest]
        var files: [SeenDigest]
    }

    /// FNV-1a of the log's bytes just before `offset`, which tell an index of this log from one
    /// of a log that was replaced or cut.
    static func check(_ log: Data, offset: Int) -> UInt64 {
        fnv(log[max(0, offset - checkedBytes)..<offset])
    }

    static func encode(_ contents: Contents, check: UInt64) -> Data {
        var data = Data(magic)
        func append(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        append(UInt64(contents.offset))
        append(check)
        append(UInt64(contents.keys.count))
        append(UInt64(contents.files.count))
        for digest in contents.keys + contents.files {
            append(digest.high)
            append(digest.low)
        }
        append(fnv(data))  // the index's own check: a damaged byte anywhere makes it ignored
        return data
    }

    private static func fnv(_ bytes: some Collection<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// The index in the file at `url`, read in pieces (the digests are the only copy held), if
    /// it is whole and `check` of the log's bytes before its offset matches; nil otherwise.
    static func read(_ url: URL, logSize: Int, check: (Int) -> UInt64?) -> Contents? {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
        defer { try? handle.close() }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var pending: [UInt8] = []
        /// The next `count` bytes, hashed unless they are the trailing check.
        func next(_ count: Int, hashed: Bool = true) -> [UInt8]? {
            while pending.count < count {
                guard let piece = try? handle.read(upToCount: 1 << 16), !piece.isEmpty else { return nil }
                pending.append(contentsOf: piece)
            }
            let taken = Array(pending.prefix(count))
            pending.removeFirst(count)
            if hashed { for byte in taken { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 } }
            return taken
        }
        func word(_ bytes: [UInt8], _ at: Int = 0) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[at + index]) << (8 * index) }
            return value
        }
        guard let header = next(40), Array(header[0..<8]) == magic else { return nil }
        let offset = Int(clamping: word(header, 8))
        let keyCount = Int(clamping: word(header, 24))
        let fileCount = Int(clamping: word(header, 32))
        guard offset <= logSize, keyCount < 1 << 28, fileCount < 1 << 28, check(offset) == word(header, 16) else { return nil }
        func digests(_ count: Int) -> [SeenDigest]? {
            var list: [SeenDigest] = []
            list.reserveCapacity(count)
            while list.count < count {
                let batch = min(count - list.count, 4096)
                guard let bytes = next(16 * batch) else { return nil }
                for index in 0..<batch {
                    let digest = SeenDigest(high: word(bytes, 16 * index), low: word(bytes, 16 * index + 8))
                    guard list.last.map({ $0 < digest }) ?? true else { return nil }
                    list.append(digest)
                }
            }
            return list
        }
        guard let keys = digests(keyCount), let files = digests(fileCount) else { return nil }
        let expected = hash
        guard let trailer = next(8, hashed: false), word(trailer) == expected, next(1, hashed: false) == nil else { return nil }
        return Contents(offset: offset, keys: keys, files: files)
    }
}
