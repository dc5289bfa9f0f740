import Foundation
import RelayCore
import Rendition
import RunEvents

/// The venue wall's pictures: the newest photos that went live, each as a screen-sized JPEG
/// (`maxEdge` px) made on a thread of its own, the last `limit` kept in memory. A photo comes
/// with its file already open (so the spool may remove it meanwhile): from the review feed when
/// it is approved (``offer(id:name:file:)``), or from the bus as each photo is spooled (while no
/// destination holds photos, or one sends selected photos). A picture shows once its photo was
/// delivered: to any destination, or, when destinations hold photos, to one of those, so that
/// an approval undone before it was sent never reaches the screen.
public final class WallStore: Sendable {
    static let maxEdge = 1920
    static let limit = 30
    /// Photos waiting for their picture at most; older ones are dropped (the wall shows the newest).
    static let pendingLimit = 8

    /// One picture on the wall.
    public struct Picture: Sendable {
        public var id: String
        public var name: String
        public var jpeg: [UInt8]
    }

    private struct Work: Sendable {
        var pending: [(id: String, name: String, file: Int32)] = []
        var made: [Picture] = []
        /// Photos delivered to a destination that counts (see `live`), by id.
        var delivered: Set<String> = []
        /// The destinations (labels) whose deliveries put a photo on the wall; nil: any.
        var live: Set<String>?
        /// Whether spooled photos are offered too (not only approved ones).
        var takesSpooled = true
        var version = 0
        var stopped = false
        var finished = false
    }

    private let work = LockedBox(Work())
    private let folder: URL

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("relay-wall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let thread = Thread { [self] in makePictures() }
        thread.name = "relay wall pictures"
        thread.start()
    }

    /// Shows only photos delivered to `destinations` (those that hold photos for review), made
    /// from the files approvals hand over, and from spooled photos too when `spooled` (a
    /// destination sends photos selected in the camera, which no approval hands over).
    public func showOnly(deliveredTo destinations: Set<String>, spooled: Bool) {
        work.change { work in
            work.live = destinations
            work.takesSpooled = spooled
        }
    }

    /// Takes the picture of photo `id` from `file` (an open descriptor the store closes).
    public func offer(id: String, name: String, file: Int32) {
        work.change { work in
            guard !work.stopped else {
                close(file)
                return
            }
            work.pending.append((id, name, file))
            while work.pending.count > Self.pendingLimit { close(work.pending.removeFirst().file) }
        }
    }

    /// While every photo goes live: a spooled photo's file is opened for its picture, and a
    /// delivery lets it on the wall.
    func observe(_ timed: TimedEvent) {
        switch timed.event {
        case .source(_, .spooled(let photo)):
            guard work.withLockedValue(\.takesSpooled) else { return }
            let file = open(photo.path, O_RDONLY | O_CLOEXEC)
            if file >= 0 { offer(id: photo.photo.id, name: photo.photo.name, file: file) }
        case .upload(.settled(let photo, let destination, .delivered)):
            work.change { work in
                guard work.live?.contains(destination) ?? true, work.delivered.insert(photo.id).inserted else { return }
                if work.made.contains(where: { $0.id == photo.id }) { work.version += 1 }
            }
        default:
            break
        }
    }

    /// The pictures to show, newest first, and a number that changes with them.
    public var shown: (version: Int, pictures: [Picture]) {
        work.withLockedValue { work in
            (work.version, work.made.filter { work.delivered.contains($0.id) }.reversed())
        }
    }

    /// Stops the thread after the picture in hand and removes the scratch folder.
    public func stop() {
        work.change { work in
            work.stopped = true
            for waiting in work.pending { close(waiting.file) }
            work.pending = []
        }
        work.wait { $0.finished ? .ready(()) : .until(nil) }
        try? FileManager.default.removeItem(at: folder)
    }

    private func makePictures() {
        let spec = RenditionSpec(maxEdge: Self.maxEdge, quality: 82, keepMetadata: false)
        while true {
            let next = work.wait { work -> LockedWait<(id: String, name: String, file: Int32)?> in
                if work.stopped { return .ready(nil) }
                return work.pending.isEmpty ? .until(nil) : .ready(work.pending.removeLast())
            }
            guard let next else { return work.change { $0.finished = true } }
            let jpeg = picture(from: next.file, spec: spec)
            close(next.file)
            guard let jpeg else { continue }
            work.change { work in
                work.made.removeAll { $0.id == next.id }
                work.made.append(Picture(id: next.id, name: next.name, jpeg: jpeg))
                if work.made.count > Self.limit { work.made.removeFirst(work.made.count - Self.limit) }
                if work.delivered.contains(next.id) { work.version += 1 }
            }
        }
    }

    private func picture(from file: Int32, spec: RenditionSpec) -> [UInt8]? {
        guard let maker = try? RenditionMaker(spec: spec) else { return nil }
        // The descriptor names the file even after the spool has removed it. Made in its turn
        // among the process's pictures, after the delivery's renditions.
        return PicturePool.shared.background {
            SmallJPEG.make(from: URL(fileURLWithPath: "/dev/fd/\(file)"), with: maker, in: folder, originalLimit: 4_000_000)
        }
    }
}
