import Foundation

/// Blocking work done by one thread at a time for each key (a file's writes and fsyncs, a library
/// that is not safe from several threads), with no lock held while it runs: a ``LockedBox``'s
/// lock must never be held across I/O, so a thread takes the key's turn under the lock, works
/// without it, and gives the turn back with a change that wakes the threads waiting for it.
/// Work under other keys goes on meanwhile.
public final class OneAtATime<Key: Hashable & Sendable>: Sendable {
    /// The keys whose turn a thread has now.
    private let busy = LockedBox<Set<Key>>([])

    public init() {}

    /// Runs `body` once no other thread runs one for `key`, and returns what it returned (or
    /// throws what it threw). Not reentrant: `body` must not ask for the same key's turn again.
    public func run<Result, Failure: Error>(_ key: Key, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        busy.wait { (busy: inout Set<Key>) -> LockedWait<Void> in
            busy.insert(key).inserted ? .ready(()) : .until(nil)
        }
        defer { busy.change { _ = $0.remove(key) } }
        return try body()
    }
}
