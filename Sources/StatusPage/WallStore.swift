import Foundation
import RelayCore
import Rendition
import RunEvents

/// The venue wall's pictures: the newest photos that went live, each as a screen-sized JPEG
/// (`maxEdge` px) made on a thread of its own, the last `limit` kept in memory. A photo comes
/// with its file already open (so the spool may remove it meanwhile): from the review feed when
/// it is approved (``offer(id:name:file:)``), or, while no destination holds photos, from the
/// bus as each photo is spooled, shown once its delivery is settled.
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
        /// Photos delivered (while every photo goes live), by id.
        var delivered: Set<String> = []
        /// Whether only approved photos go on the wall (a destination of the run holds photos).
        var approvedOnly = false
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

    /// Shows approved photos only, as they are offered, instead of every delivered photo.
    public func showApprovedOnly() {
        work.change { $0.approvedOnly = true }
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
            guard !work.withLockedValue(\.approvedOnly) else { return }
            let file = open(photo.path, O_RDONLY | O_CLOEXEC)
            if file >= 0 { offer(id: photo.photo.id, name: photo.photo.name, file: file) }
        case .upload(.settled(let photo, _, .delivered)):
            work.change { work in
                guard work.delivered.insert(photo.id).inserted else { return }
                if work.made.contains(where: { $0.id == photo.id }) { work.version += 1 }
            }
        default:
            break
        }
    }

    /// The pictures to show, newest first, and a number that changes with them.
    public var shown: (version: Int, pictures: [Picture]) {
        work.withLockedValue { work in
            let live = work.approvedOnly ? work.made : work.made.filter { work.delivered.contains($0.id) }
            return (work.version, live.reversed())
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
                work.version += 1
            }
        }
    }

    private func picture(from file: Int32, spec: RenditionSpec) -> [UInt8]? {
        guard let maker = try? RenditionMaker(spec: spec) else { return nil }
        // The descriptor names the file even after the spool has removed it.
        return SmallJPEG.make(from: URL(fileURLWithPath: "/dev/fd/\(file)"), with: maker, in: folder, originalLimit: 4_000_000)
    }
}
