/// The loupe's pictures kept in memory, the least recently used dropped first once they hold
/// more than `byteLimit` bytes or number more than `countLimit` (pure).
struct LoupeCache: Sendable {
    let byteLimit: Int
    let countLimit: Int
    /// Least recently used first.
    private var entries: [(key: String, jpeg: [UInt8])] = []
    private(set) var bytes = 0

    init(byteLimit: Int, countLimit: Int) {
        self.byteLimit = byteLimit
        self.countLimit = countLimit
    }

    var keys: [String] { entries.map(\.key) }

    /// The picture under `key`, now the most recently used.
    mutating func take(_ key: String) -> [UInt8]? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let hit = entries.remove(at: index)
        entries.append(hit)
        return hit.jpeg
    }

    mutating func insert(_ key: String, _ jpeg: [UInt8]) {
        if let index = entries.firstIndex(where: { $0.key == key }) { bytes -= entries.remove(at: index).jpeg.count }
        entries.append((key, jpeg))
        bytes += jpeg.count
        while entries.count > 1 && (bytes > byteLimit || entries.count > countLimit) { bytes -= entries.removeFirst().jpeg.count }
    }
}

/// The sizes of the loupe's fitted pictures (pure): a few long edges, so that every phone and
/// screen of about one size shares one picture made once, never larger than the photo.
enum LoupeSizes {
    /// Long edges in device pixels, from a small phone's to a 4K screen's.
    static let buckets = [640, 960, 1280, 1600, 2048, 2560, 3200, 3840]

    /// The long edge of the picture for a screen `screenEdge` device pixels on its long side
    /// (CSS pixels × the device pixel ratio) and a photo `photoEdge` pixels on its: the
    /// smallest bucket that fills the screen (the largest for a larger screen), at most the photo.
    static func bucket(screenEdge: Double, photoEdge: Int) -> Int {
        let wanted = buckets.first { Double($0) >= screenEdge.rounded() } ?? buckets[buckets.count - 1]
        return max(1, min(wanted, photoEdge))
    }
}
