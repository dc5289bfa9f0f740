extension JPEGSegments {
    /// The first piece of a photo's head asked for: most heads end within it.
    public static let firstHeadPiece = 64 * 1024

    /// A photo's head, as far as its segments before the pixels go (``bytesNeeded(_:)``) and
    /// at most `limit` bytes, read in pieces with `read(offset, count)` from wherever the photo
    /// is: a camera's card, a spooled file, a download under way. A piece shorter than asked (or
    /// nil) is the photo's end. Never the pixels; nil when nothing could be read.
    public static func readHead<Failure: Error>(
        limit: Int, _ read: (_ offset: Int64, _ count: Int) throws(Failure) -> [UInt8]?
    ) throws(Failure) -> [UInt8]? {
        var head: [UInt8] = []
        var wanted = min(firstHeadPiece, limit)
        while head.count < wanted {
            let count = wanted - head.count
            guard let piece = try read(Int64(head.count), count), !piece.isEmpty else { break }
            head += piece.prefix(count)
            guard piece.count >= count, let needed = bytesNeeded(head) else { break }
            wanted = min(limit, max(needed, head.count + 1))
        }
        return head.isEmpty ? nil : head
    }
}
