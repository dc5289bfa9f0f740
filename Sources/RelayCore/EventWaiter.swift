import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thread's wait for whichever comes first: a watched file in a folder written, renamed in
/// or removed (inotify), a ``wake(_:)`` from another thread, or a deadline. Nothing is looked at
/// while nothing happens, so a run that waits costs no CPU.
///
/// Where inotify cannot be had (macOS, or the user's watch limit reached) the files are reported
/// changed every ``fallbackInterval``: macOS's kqueue watches an open file, and a file replaced
/// by a rename would need it opened again.
public final class EventWaiter: @unchecked Sendable {
    /// Why ``wait(until:)`` returned.
    public struct Reasons: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A watched file changed, or a change may have been missed (the kernel's queue
        /// overflowed, or no inotify): look at it.
        public static let files = Reasons(rawValue: 1)
        /// Another thread called ``wake(_:)``.
        public static let woken = Reasons(rawValue: 2)
        /// The deadline came.
        public static let deadline = Reasons(rawValue: 4)
    }

    /// How often the files count as changed without inotify.
    public static let fallbackInterval: TimeInterval = 1

    /// The reasons given by ``wake(_:)`` and not yet taken by a wait.
    private let pending = LockedBox<Reasons>([])
    private let pipe: WakePipe
    /// The inotify descriptor, -1 without one.
    private let inotify: Int32
    private let names: Set<String>

    /// Watches the files named `names` in `folder` (they need not exist yet). Throws when no
    /// pipe can be had (the process is out of file descriptors).
    public init(folder: URL, names: Set<String>) throws(Errno) {
        pipe = try WakePipe()
        self.names = names
        inotify = Self.watch(folder)
    }

    deinit {
        if inotify >= 0 { close(inotify) }
    }

    /// Whether changes to the files are seen as they happen (else every ``fallbackInterval``).
    public var watchesFiles: Bool { inotify >= 0 }

    /// Ends the waiting thread's ``wait(until:)`` (or its next one) with `reasons` and
    /// ``Reasons/woken``. Wakes that come before the waiter looks are taken together.
    public func wake(_ reasons: Reasons = []) {
        let first = pending.withLockedValue { pending in
            defer { pending.formUnion(reasons.union(.woken)) }
            return pending.isEmpty
        }
        guard first else { return }
        pipe.wake()
    }

    /// Blocks until a watched file changes, a wake, or `deadline` (nil: none); returns why.
    public func wait(until deadline: Date?) -> Reasons {
        while true {
            var limit = deadline
            if inotify < 0 { limit = min(deadline ?? .distantFuture, Date().addingTimeInterval(Self.fallbackInterval)) }
            var descriptors = [pollfd(fd: pipe.readEnd, events: Int16(POLLIN), revents: 0)]
            if inotify >= 0 { descriptors.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Self.milliseconds(until: limit))
            if ready < 0 && errno == EINTR { continue }
            var reasons: Reasons = []
            if descriptors[0].revents != 0 {
                // Drained before the pending reasons are taken: a wake after this writes again.
                pipe.drain()
                reasons.formUnion(
                    pending.withLockedValue { pending in
                        defer { pending = [] }
                        return pending
                    })
            }
            if descriptors.count > 1 && descriptors[1].revents != 0 && readWatchedChanges() { reasons.insert(.files) }
            if let deadline, Date() >= deadline { reasons.insert(.deadline) }
            if inotify < 0, let limit, Date() >= limit { reasons.insert(.files) }
            if !reasons.isEmpty { return reasons }
        }
    }

    private static func milliseconds(until limit: Date?) -> Int32 {
        guard let limit else { return -1 }
        let milliseconds = (limit.timeIntervalSinceNow * 1000).rounded(.up)
        return Int32(max(0, min(milliseconds, Double(Int32.max))))
    }

    #if os(Linux)
        private static let mask =
            UInt32(IN_CLOSE_WRITE) | UInt32(IN_MODIFY) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_DELETE)
            | UInt32(IN_MOVED_FROM)

        private static func watch(_ folder: URL) -> Int32 {
            let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return -1 }
            guard inotify_add_watch(descriptor, folder.path, mask) >= 0 else {
                close(descriptor)
                return -1
            }
            return descriptor
        }

        /// Reads the queued events; true when one names a watched file or some were lost.
        private func readWatchedChanges() -> Bool {
            var changed = false
            InotifyEvents.read(inotify) { event in
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 || names.contains(event.name) { changed = true }
            }
            return changed
        }
    #else
        private static func watch(_ folder: URL) -> Int32 { -1 }

        private func readWatchedChanges() -> Bool { true }
    #endif
}
