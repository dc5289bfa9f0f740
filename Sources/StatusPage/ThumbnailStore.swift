import Foundation
import PhotoMetadata
import RelayCore
import Rendition
import RunEvents

/// Small JPEGs of the latest photos for the page, made on a thread of their own: the bus calls
/// observers on a camera's download thread, which must not wait for a decode. Each is the
/// camera's own EXIF preview when the photo has one, else a rendition at `maxEdge` px (libjpeg
/// decodes a camera's photo at 1/8 scale for that). The
/// spool file is opened when the photo is spooled, so that a photo delivered and removed before
/// its turn still gets its thumbnail; one whose file is already gone gets none, and the page
/// shows a placeholder. At most `limit` are kept, the oldest dropped first. Each is made in its
/// turn in the process's ``PicturePool`` (background work: after the delivery's renditions).
final class ThumbnailStore: Sendable {
    static let maxEdge = 160
    static let limit = 24
    /// A photo this small that RenditionMaker leaves as it is serves as its own thumbnail.
    static let smallOriginalBytes = 64 * 1024

    /// What the page's threads and the thumbnail thread share.
    private struct Work: Sendable {
        /// Photos waiting for a thumbnail, each with its spool file held open.
        var pending: [(id: String, file: Int32)] = []
        var made: [(id: String, jpeg: [UInt8])] = []
        var busy = false
        var stopped = false
        var finished = false
    }

    private let work = LockedBox(Work())
    private let folder: URL
    private let pool: PicturePool

    init(pool: PicturePool = .shared) throws {
        self.pool = pool
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-thumbs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let thread = Thread { [self] in makeThumbnails() }
        thread.name = "relay status thumbnails"
        thread.start()
    }

    /// Queues a thumbnail for a spooled photo; returns at once.
    func observe(_ timed: TimedEvent) {
        guard case .source(_, .spooled(let photo)) = timed.event else { return }
        let file = open(photo.path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        work.change { work in
            guard !work.stopped else {
                close(file)
                return
            }
            work.pending.append((photo.photo.id, file))
            if work.pending.count > Self.limit {
                for dropped in work.pending.prefix(work.pending.count - Self.limit) { close(dropped.file) }
                work.pending.removeFirst(work.pending.count - Self.limit)
            }
        }
    }

    /// The thumbnails made so far, by photo id.
    var snapshot: [String: [UInt8]] {
        work.withLockedValue { Dictionary($0.made.map { ($0.id, $0.jpeg) }, uniquingKeysWith: { _, last in last }) }
    }

    /// Waits until the queue is empty (tests; the run never needs to).
    func drain() {
        work.wait { ($0.pending.isEmpty && !$0.busy) || $0.finished ? .ready(()) : .until(nil) }
    }

    /// Stops the thread after the thumbnail in hand and removes the scratch folder.
    func stop() {
        work.change { work in
            work.stopped = true
            for waiting in work.pending { close(waiting.file) }
            work.pending = []
        }
        work.wait { $0.finished ? .ready(()) : .until(nil) }
        try? FileManager.default.removeItem(at: folder)
    }

    private func makeThumbnails() {
        let maker = try? RenditionMaker(spec: RenditionSpec(maxEdge: Self.maxEdge, quality: 70, keepMetadata: false))
        while true {
            let next = work.wait { work -> LockedWait<(id: String, file: Int32)?> in
                if work.stopped { return .ready(nil) }
                guard !work.pending.isEmpty else { return .until(nil) }
                work.busy = true
                return .ready(work.pending.removeFirst())
            }
            guard let next else {
                work.change { $0.finished = true }
                return
            }
            // The descriptor names the file even after the spool has removed it.
            let jpeg = maker.flatMap { maker in pool.background { thumbnail(of: "/dev/fd/\(next.file)", with: maker) } }
            close(next.file)
            work.change { work in
                if let jpeg {
                    work.made.removeAll { $0.id == next.id }
                    work.made.append((next.id, jpeg))
                    if work.made.count > Self.limit { work.made.removeFirst(work.made.count - Self.limit) }
                }
                work.busy = false
            }
        }
    }

    private func thumbnail(of path: String, with maker: RenditionMaker) -> [UInt8]? {
        let source = URL(fileURLWithPath: path)
        if let data = try? Data(contentsOf: source, options: .alwaysMapped), let preview = Self.cameraPreview(data) {
            return preview
        }
        // Already small (or not a JPEG relay can shrink): a small file shows as it is.
        return SmallJPEG.make(from: source, with: maker, in: folder, originalLimit: Self.smallOriginalBytes)
    }

    /// The preview the camera stored in the EXIF, when the photo is upright: a sideways one would
    /// show sideways, so a turned photo is decoded instead.
    static func cameraPreview(_ data: Data) -> [UInt8]? {
        guard let segments = try? JPEGSegments(data),
            let exif = segments.segments.first(where: { $0.kind == .exif }),
            let editor = try? ExifEditor(tiff: Array(data[exif.body.dropFirst(JPEGSegments.exifSignatureLength)])),
            editor.orientation == .up
        else { return nil }
        return editor.thumbnailJPEG
    }
}
