import Foundation
import RelayCore
import Rendition

/// The editor's page's thumbnails: large enough to judge a face on a phone (`maxEdge` px), made
/// when first asked for (from the photo's rendition when it has one, which decodes fast) and
/// kept, the most recently used `limit`, so that paging back and a second editor cost nothing.
/// Called from the server's threads at once: each makes its own with its own codec, in its turn
/// in the process's ``PicturePool`` (page work, newest first).
public final class ReviewThumbnails: Sendable {
    static let maxEdge = 480
    static let limit = 400

    private let made = LockedBox([(id: String, jpeg: [UInt8])]())
    private let folder: URL
    private let pool: PicturePool

    public init(pool: PicturePool = .shared) throws {
        self.pool = pool
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Removes the scratch folder.
    public func stop() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The thumbnail of photo `id`, made from `file`; nil when it cannot be made. Throws when
    /// the pool turned the request away (newer ones took its place).
    public func jpeg(id: String, file: URL) throws(PicturePool.Busy) -> [UInt8]? {
        if let cached = made.withLockedValue({ made -> [UInt8]? in
            guard let index = made.firstIndex(where: { $0.id == id }) else { return nil }
            let hit = made.remove(at: index)
            made.append(hit)
            return hit.jpeg
        }) {
            return cached
        }
        guard let jpeg = try pool.page(key: "thumbnail \(id)", { make(from: file) }) else { return nil }
        made.withLockedValue { made in
            made.removeAll { $0.id == id }
            made.append((id, jpeg))
            if made.count > Self.limit { made.removeFirst(made.count - Self.limit) }
        }
        return jpeg
    }

    private func make(from file: URL) -> [UInt8]? {
        guard let maker = try? RenditionMaker(spec: RenditionSpec(maxEdge: Self.maxEdge, quality: 75, keepMetadata: false)) else {
            return nil
        }
        return SmallJPEG.make(from: file, with: maker, in: folder, originalLimit: 1_000_000)
    }
}

extension StatusResponse {
    /// The answer to a page's picture the ``PicturePool`` turned away: ask again in a second.
    static let busy = StatusResponse.json(503, ["error": PicturePool.Busy().description], headers: ["Retry-After": "1"])
}
