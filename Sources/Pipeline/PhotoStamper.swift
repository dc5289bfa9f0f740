import Foundation
import PhotoMetadata
import RelayCore
import RunEvents
import Spool
import Stamp
import Uploader

/// Stamps the photos a run sends (issue 42): for each upload to a destination that takes the
/// stamp, the template under RELAY_HOME (read again when `relay stamp` changes it) is filled
/// for the photo and its header rewritten (``HeaderStamper``); the uploader sends the new
/// header, then the camera's bytes from the pixels on. A photo still downloading is stamped
/// once its header has arrived. What cannot be stamped goes as the camera made it, said once
/// per kind (a RAW) or per photo (a corrupt header).
final class PhotoStamper: Sendable {
    /// A stamp for one upload: what replaces the header, and the template version.
    struct Stamped: Sendable {
        var prefix: BodyPrefix
        var version: Int
        /// The editor's caption and title written into it, if it had one (for the history).
        var editor: PhotoCaption?
        /// The title, caption and creator written.
        var words: PhotoWords
    }

    /// What to send.
    enum Decision: Sendable {
        /// The photo with this stamp.
        case stamped(Stamped)
        /// The photo as it is: no template, or a photo that cannot be stamped (said).
        case asItIs
        /// Not yet: the header of a photo still downloading did not arrive (or relay is
        /// stopping); this upload is given up and the photo is sent, stamped, from the spool.
        case notYet
    }

    /// A template file as last read, and its modification time then.
    private struct Cached: Sendable {
        var template: StampTemplate?
        var modified: Date?
    }

    private struct State: Sendable {
        /// The templates read, by file path: the event's and each photographer's.
        var cached: [String: Cached] = [:]
        var said: Set<String> = []
        /// Photos stamped, and the CPU time their stamps took (the template filled, the header
        /// read and rewritten), for the run's last line and the benchmark.
        var stamped = 0
        var cpuNanoseconds: UInt64 = 0
    }

    private let home: RelayHome
    private let bus: RunEventBus
    private let state = LockedBox(State())
    /// The editor's caption of a photo, by spool id (the review feed's, once the run has one).
    private let captions = LockedBox<@Sendable (String) -> PhotoCaption?>({ _ in nil })
    /// How long a stamp waits for a downloading photo's header.
    static let headerWait: TimeInterval = 30

    init(home: RelayHome, bus: RunEventBus) {
        self.home = home
        self.bus = bus
    }

    /// Reads each photo's editor's caption from `lookup` from now on.
    func readCaptions(from lookup: @escaping @Sendable (String) -> PhotoCaption?) {
        captions.withLockedValue { $0 = lookup }
    }

    /// What to send for `entry`'s file at `filePath` (or `growing`, while it downloads);
    /// `stopping` ends a wait for a downloading photo's header. A rendition's variables (the
    /// capture time, the model) are read from `original`, the camera's file, when it is another.
    func stamp(
        _ entry: SpoolEntry, filePath: String, growing: (any GrowingFile)?, original: String? = nil,
        stopping: @escaping @Sendable () -> Bool = { false }
    ) -> Decision {
        let editor = captions.withLockedValue { $0 }(entry.id)
        // The editor's caption is written even when no template is set.
        let template = template(for: entry.photographer) ?? StampTemplate.empty
        guard template.writesAnything || editor != nil else { return .asItIs }
        let head: [UInt8]
        switch Self.head(filePath: filePath, growing: growing, stopping: stopping) {
        case .some(let read): head = read
        case .none where growing != nil: return .notYet
        case .none:
            say("\(entry.uploadName) goes without its stamp: its header could not be read", key: "unread:" + entry.id)
            return .asItIs
        }
        let started = Self.threadCPUNanoseconds()
        let originalHead = original.flatMap { $0 == filePath ? nil : PhotoFileHeader.firstBytes(of: $0) }
        let header = PhotoHeaderIdentity(head: originalHead ?? head)
        var photo = StampPhoto(
            header: header, name: entry.uploadName, sequence: entry.sequence, bracket: entry.bracket, capturedAt: entry.capturedAt,
            serial: Self.serial(of: entry))
        photo.photographer = entry.photographer ?? ""
        photo.editor = editor
        let values = template.render(photo)
        switch HeaderStamper.stamp(head: head, values: values) {
        case .success(let stamped):
            let spent = Self.threadCPUNanoseconds() &- started
            state.withLockedValue {
                $0.stamped += 1
                $0.cpuNanoseconds &+= spent
            }
            for note in stamped.notes { say("stamp: \(note)", key: "note:" + note) }
            return .stamped(
                Stamped(
                    prefix: BodyPrefix(bytes: stamped.prefix, replacing: stamped.skip), version: template.version, editor: editor,
                    words: PhotoWords(title: values.title, caption: values.caption, creator: values.creator)))
        case .failure(.notJPEG):
            say("photos that are not JPEGs (\(entry.uploadName)) go without the stamp: relay writes it into JPEGs only", key: "notJPEG")
        case .failure(let refusal):
            say("\(entry.uploadName) goes as the camera made it, without its stamp: \(refusal)", key: "refused:" + entry.id)
        }
        return .asItIs
    }

    /// The event's template with the photographer's fields over it (``StampTemplate/overlaid(by:)``);
    /// the photographer's alone when the event has none.
    private func template(for photographer: String?) -> StampTemplate? {
        let event = current(StampStore(home: home))
        guard let photographer, StampStore.isPhotographerName(photographer) else { return event }
        let own = current(StampStore(home: home, photographer: photographer))
        return event.map { $0.overlaid(by: own) } ?? own
    }

    /// The template in `store`'s file, read again when the file changed; a file relay cannot
    /// read is said once and photos go without it until it is fixed (it is never replaced).
    private func current(_ store: StampStore) -> StampTemplate? {
        let path = store.file.url.path
        let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
        return state.withLockedValue { state in
            if let cached = state.cached[path], cached.modified == modified { return cached.template }
            var fresh = Cached(template: nil, modified: modified)
            do {
                fresh.template = try store.load()
            } catch {
                let line = "the stamp template \(path) cannot be read (\(error)); photos go without it until it is fixed (relay stamp show)"
                if state.said.insert("template:\(path):\(modified?.timeIntervalSince1970 ?? 0)").inserted {
                    bus.publish(.run(.notice(line, .warning)))
                }
            }
            state.cached[path] = fresh
            return fresh.template
        }
    }

    /// "stamped 20 photos (0.6 ms of CPU each)", nil when none was.
    var summary: String? {
        state.withLockedValue { state in
            guard state.stamped > 0 else { return nil }
            let each = Double(state.cpuNanoseconds) / Double(state.stamped) / 1_000_000
            return "stamped \(state.stamped) photo(s) (\(String(format: "%.2f", each)) ms of CPU each)"
        }
    }

    private static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private func say(_ line: String, key: String) {
        guard state.withLockedValue({ $0.said.insert(key).inserted }) else { return }
        bus.publish(.run(.notice(line, .info)))
    }

    /// The file's application segments: read from the spool, or, from a photo still
    /// downloading, as they arrive. Nil when nothing could be read.
    static func head(filePath: String, growing: (any GrowingFile)?, stopping: () -> Bool = { false }) -> [UInt8]? {
        let descriptor = growing?.fileDescriptor ?? open(filePath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { if growing == nil { close(descriptor) } }
        let deadline = Date().addingTimeInterval(headerWait)
        return try? JPEGSegments.readHead(limit: headLimit) { (offset, count) throws(HeadUnread) -> [UInt8]? in
            var piece: [UInt8] = []
            while piece.count < count {
                let at = offset + Int64(piece.count)
                var readable = Int64.max
                if let growing {
                    // Slices, for `stopping`: the cancellation token is a flag, not an event.
                    switch growing.waitForBytes(beyond: at, timeout: 0.25) {
                    case .abandoned: throw HeadUnread()
                    case .ended: return piece
                    case .available(let end): readable = end
                    case .pending:
                        guard Date() < deadline, !stopping() else { throw HeadUnread() }
                        continue
                    }
                }
                var chunk = [UInt8](repeating: 0, count: Int(min(Int64(count - piece.count), readable - at)))
                let read = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(at)) }
                guard read > 0 else { return piece }
                piece += chunk.prefix(read)
            }
            return piece
        }
    }

    /// A growing photo's head did not come: its download was abandoned, it stalled, or the run stops.
    private struct HeadUnread: Error {}

    /// The most of a file read for its header: past it, the header is taken as corrupt.
    static let headLimit = 1 << 20

    private static func serial(of entry: SpoolEntry) -> String {
        entry.source.hasPrefix("camera:") ? String(entry.source.dropFirst("camera:".count)) : ""
    }
}
