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
///
/// The desk may pin one photo (``pin(id:name:photographer:file:)``): the wall then shows it
/// and nothing else until it is unpinned, whether it went live or not (the editor chose it).
public final class WallStore: Sendable {
    static let maxEdge = 1920
    static let limit = 30
    /// Photos waiting for their picture at most; older ones are dropped (the wall shows the newest).
    static let pendingLimit = 8

    /// One picture on the wall.
    public struct Picture: Sendable {
        public var id: String
        public var name: String
        /// Who shot it, when the run knows (a receiver's login): the wall's credit.
        public var photographer: String?
        public var jpeg: [UInt8]
    }

    /// What the wall shows now.
    public struct Shown: Sendable {
        /// Changes whenever anything below does.
        public var version: Int
        /// The pictures that went live, newest first.
        public var pictures: [Picture]
        /// The picture the desk pinned, shown alone while it is.
        public var pinned: Picture?
    }

    /// A photo whose picture is to be made, with its file open.
    private struct Pending: Sendable {
        var id: String
        var name: String
        var photographer: String?
        var file: Int32
    }

    private struct Work: Sendable {
        var pending: [Pending] = []
        var made: [Picture] = []
        /// The photo to pin, made before any other, and its ticket.
        var pinRequest: (ticket: Int, photo: Pending)?
        /// Counts pins and unpins: a picture made for an older ticket is not pinned.
        var pinTicket = 0
        /// The last ticket whose picture was made or given up.
        var pinDone = 0
        var pinned: Picture?
        /// The photo last pinned and not unpinned, its picture made or not yet.
        var pinWanted: String?
        /// The editor's caption of a photo, by id.
        var caption: (@Sendable (String) -> String?)?
        /// Moves when a caption may have changed (mixed into the version the wall asks with).
        var captionChanges: @Sendable () -> Int = { 0 }
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
    public func offer(id: String, name: String, photographer: String? = nil, file: Int32) {
        work.change { work in
            guard !work.stopped else {
                close(file)
                return
            }
            work.pending.append(Pending(id: id, name: name, photographer: photographer, file: file))
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
            if file >= 0 { offer(id: photo.photo.id, name: photo.photo.name, photographer: photo.photo.photographer, file: file) }
        case .upload(.settled(let photo, let destination, .delivered)):
            work.change { work in
                guard work.live?.contains(destination) ?? true, work.delivered.insert(photo.id).inserted else { return }
                if work.made.contains(where: { $0.id == photo.id }) { work.version += 1 }
            }
        default:
            break
        }
    }

    /// The pictures to show, newest first, the pinned one, and a number that changes with them.
    public var shown: Shown {
        work.withLockedValue { work in
            Shown(
                version: work.version &+ work.captionChanges(), pictures: work.made.filter { work.delivered.contains($0.id) }.reversed(),
                pinned: work.pinned)
        }
    }

    /// Pins photo `id` in place of any pinned before, its picture made from `file` (an open
    /// descriptor the store closes) unless the wall has it already, and waits for that picture:
    /// false when it cannot be made (not a JPEG relay decodes) or not within `timeout`.
    public func pin(id: String, name: String, photographer: String?, file: Int32, timeout: TimeInterval = 30) -> Bool {
        let ticket = work.change { work -> Int? in
            work.pinTicket += 1
            cancelPinRequest(&work)
            guard !work.stopped else {
                close(file)
                return nil
            }
            work.pinWanted = id
            if let made = work.pinned?.id == id ? work.pinned : work.made.last(where: { $0.id == id }) {
                close(file)
                work.pinned = made
                work.version += 1
                return 0
            }
            work.pinRequest = (work.pinTicket, Pending(id: id, name: name, photographer: photographer, file: file))
            return work.pinTicket
        }
        guard let ticket else { return false }
        guard ticket > 0 else { return true }
        let deadline = Date().addingTimeInterval(timeout)
        return work.wait { work -> LockedWait<Bool> in
            if work.pinDone >= ticket || work.stopped { return .ready(work.pinned?.id == id) }
            guard Date() < deadline else {
                // Given up: a picture made later is not pinned behind the desk's back.
                if work.pinTicket == ticket {
                    work.pinTicket += 1
                    work.pinWanted = nil
                    cancelPinRequest(&work)
                }
                return .ready(false)
            }
            return .until(deadline)
        }
    }

    /// Unpins photo `id` when it is the one pinned (an editor who saw an older pin leaves a
    /// newer one be); returns the photo pinned after.
    @discardableResult
    public func unpin(id: String) -> String? {
        work.change { work in
            guard work.pinWanted == id || work.pinned?.id == id else { return work.pinned?.id }
            work.pinTicket += 1
            work.pinWanted = nil
            cancelPinRequest(&work)
            if work.pinned != nil {
                work.pinned = nil
                work.version += 1
            }
            return nil
        }
    }

    /// The photo pinned now, if any.
    public var pinnedID: String? { work.withLockedValue { $0.pinned?.id } }

    private func cancelPinRequest(_ work: inout Work) {
        if let request = work.pinRequest { close(request.photo.file) }
        work.pinRequest = nil
    }

    /// The picture for pin `ticket` is made (nil: it cannot be): pinned unless the desk pinned
    /// another or unpinned since.
    private func finishPin(_ ticket: Int, _ picture: Picture?) {
        work.change { work in
            work.pinDone = max(work.pinDone, ticket)
            guard ticket == work.pinTicket else { return }
            guard let picture else {
                work.pinWanted = work.pinned?.id
                return
            }
            work.pinned = picture
            work.version += 1
        }
    }

    /// Looks up each picture's caption (the editor's) as the wall asks for its pictures; none
    /// until this is called. The wall's pages see a caption changed since when another picture
    /// comes.
    /// `changes` moves whenever a caption may have changed, so that the wall shows an edit.
    public func describe(
        with lookup: @escaping @Sendable (_ id: String) -> String?, changes: @escaping @Sendable () -> Int = { 0 }
    ) {
        work.change { work in
            work.caption = lookup
            work.captionChanges = changes
            work.version += 1
        }
    }

    /// The caption of photo `id`, if a lookup was given and knows one.
    func caption(of id: String) -> String? {
        work.withLockedValue(\.caption)?(id).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Who shot photo `id`, if the wall has its picture.
    func photographer(of id: String) -> String? {
        work.withLockedValue { work in
            work.pinned?.id == id ? work.pinned?.photographer : work.made.last { $0.id == id }?.photographer
        }
    }

    /// Stops the thread after the picture in hand and removes the scratch folder.
    public func stop() {
        work.change { work in
            work.stopped = true
            for waiting in work.pending { close(waiting.file) }
            work.pending = []
            cancelPinRequest(&work)
        }
        work.wait { $0.finished ? .ready(()) : .until(nil) }
        try? FileManager.default.removeItem(at: folder)
    }

    private func makePictures() {
        let spec = RenditionSpec(maxEdge: Self.maxEdge, quality: 82, keepMetadata: false)
        while true {
            // A photo to pin first: the desk waits for it.
            let taken = work.wait { work -> LockedWait<(pin: Int?, photo: Pending)?> in
                if work.stopped { return .ready(nil) }
                if let request = work.pinRequest {
                    work.pinRequest = nil
                    return .ready((request.ticket, request.photo))
                }
                return work.pending.isEmpty ? .until(nil) : .ready((nil, work.pending.removeLast()))
            }
            guard let (pin, next) = taken else { return work.change { $0.finished = true } }
            let jpeg = picture(from: next.file, spec: spec)
            close(next.file)
            if let pin {
                finishPin(pin, jpeg.map { Picture(id: next.id, name: next.name, photographer: next.photographer, jpeg: $0) })
                continue
            }
            guard let jpeg else { continue }
            work.change { work in
                work.made.removeAll { $0.id == next.id }
                work.made.append(Picture(id: next.id, name: next.name, photographer: next.photographer, jpeg: jpeg))
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
