import Foundation
import RelayCore

/// The one place pictures are made, shared by the whole process: the delivery's renditions, the
/// status page's thumbnails, the editor's thumbnails and loupe pictures, the wall's pictures.
/// At most ``slots`` are made at once (one per processor: a 2-core box keeps its cores for
/// making pictures, never more decodes than it has cores), in the order ``PictureQueue``
/// decides: renditions first, so that an editor browsing never holds up the uploads, then the
/// pages' pictures newest first, the oldest waiting turned away (``Busy``: the page answers 503
/// and asks again) rather than queued without end.
///
/// A permit scheduler, not a thread pool: the caller's own thread does the work once it is
/// granted a slot. The callers are threads already (libmicrohttpd's, the rendition thread, the
/// thumbnail and wall threads), blocked on their picture anyway; no work or result crosses
/// threads, and a caller keeps its own libjpeg codec. Work in a slot must not ask for another.
public final class PicturePool: Sendable {
    /// The process's pool: one slot per active processor.
    public static let shared = PicturePool(slots: ProcessInfo.processInfo.activeProcessorCount)

    /// A page's request turned away: newer ones took its place in the queue.
    public struct Busy: Error, Equatable, Sendable, CustomStringConvertible {
        public init() {}
        public var description: String { "relay is busy making other pictures; ask again in a moment" }
    }

    private struct State: Sendable {
        var queue: PictureQueue
        var nextTicket = 0
        /// Tickets granted or turned away whose threads have not looked yet.
        var granted: Set<Int> = []
        var turnedAway: Set<Int> = []
        /// Keyed page requests being made (waiting or running), by key: the maker's ticket.
        var making: [String: Int] = [:]
        /// What a keyed request made, for those that asked for the same key meanwhile: by the
        /// maker's ticket, until each of them took it.
        var shared: [Int: Shared] = [:]

        mutating func apply(_ turn: PictureQueue.Turn) {
            granted.formUnion(turn.granted)
            turnedAway.formUnion(turn.turnedAway)
        }
    }

    private struct Shared: Sendable {
        enum Outcome: Sendable {
            case made(any Sendable)
            case busy
        }

        var joined = 0
        var outcome: Outcome?
    }

    private let state: LockedBox<State>

    /// How a page request entered: joined the maker of its key, or queued with its ticket.
    private enum Entry {
        case joined(Int)
        case queued(Int)
    }

    /// A pool making `slots` pictures at once (at least 1), with at most `pageLimit` page
    /// requests waiting (by default as many as the slots, and at least 2).
    public init(slots: Int, pageLimit: Int? = nil) {
        let slots = max(1, slots)
        state = LockedBox(State(queue: PictureQueue(slots: slots, pageLimit: pageLimit ?? max(2, slots))))
    }

    /// The queue as it is now: who makes a picture, who waits.
    public var queue: PictureQueue { state.withLockedValue(\.queue) }

    /// Waits until `condition` holds of the queue and the number of requests that joined a
    /// keyed one, or `deadline` passes (false); woken by every change (tests).
    func wait(until deadline: Date, for condition: (_ queue: PictureQueue, _ joined: Int) -> Bool) -> Bool {
        state.wait { state -> LockedWait<Bool> in
            if condition(state.queue, state.shared.values.reduce(0) { $0 + ($1.outcome == nil ? $1.joined : 0) }) { return .ready(true) }
            return Date() >= deadline ? .ready(false) : .until(deadline)
        }
    }

    /// Runs `body` (a rendition the uploads wait for) on this thread once a slot is free, before
    /// any page work waiting; never turned away.
    public func delivery<Value, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        try inTurn(.delivery, body)
    }

    /// Runs `body` (page work no screen waits for) on this thread in its turn among the pages'
    /// pictures; never turned away.
    public func background<Value, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        try inTurn(.background, body)
    }

    /// Runs `body` (a picture a page asked for) on this thread in its turn, newest first, or
    /// throws ``Busy`` when newer requests pushed it out of the queue. With a `key`, a request
    /// for a key being made already waits for that one's value instead of making it again (the
    /// same key must always give the same type).
    public func page<Value: Sendable>(key: String? = nil, _ body: () -> Value) throws(Busy) -> Value {
        let entry = state.change { state -> Entry in
            if let key, let maker = state.making[key] {
                state.shared[maker, default: Shared()].joined += 1
                return .joined(maker)
            }
            let ticket = state.nextTicket
            state.nextTicket += 1
            if let key { state.making[key] = ticket }
            state.apply(state.queue.arrive(ticket, .page))
            return .queued(ticket)
        }
        switch entry {
        case .joined(let maker):
            switch awaitShared(maker) {
            case .made(let value as Value): return value
            case .made: return try page(body)
            case .busy: throw Busy()
            }
        case .queued(let ticket):
            guard awaitTurn(ticket) else {
                settle(key, ticket, .busy)
                throw Busy()
            }
            let value = body()
            leave(ticket)
            settle(key, ticket, .made(value))
            return value
        }
    }

    private func inTurn<Value, Failure: Error>(_ work: PictureQueue.Work, _ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        let ticket = state.change { state in
            let ticket = state.nextTicket
            state.nextTicket += 1
            state.apply(state.queue.arrive(ticket, work))
            return ticket
        }
        _ = awaitTurn(ticket)
        defer { leave(ticket) }
        return try body()
    }

    /// Waits until `ticket` is granted (true) or turned away (false).
    private func awaitTurn(_ ticket: Int) -> Bool {
        state.wait { state -> LockedWait<Bool> in
            if state.granted.remove(ticket) != nil { return .ready(true) }
            if state.turnedAway.remove(ticket) != nil { return .ready(false) }
            return .until(nil)
        }
    }

    private func leave(_ ticket: Int) {
        state.change { $0.apply($0.queue.finish(ticket)) }
    }

    /// The keyed request `ticket` ended with `outcome`: the key is free again, and those that
    /// joined it get the outcome.
    private func settle(_ key: String?, _ ticket: Int, _ outcome: Shared.Outcome) {
        guard let key else { return }
        state.change { state in
            if state.making[key] == ticket { state.making[key] = nil }
            state.shared[ticket]?.outcome = outcome
        }
    }

    /// Waits for the outcome of `maker`, which this thread joined.
    private func awaitShared(_ maker: Int) -> Shared.Outcome {
        state.wait { state -> LockedWait<Shared.Outcome> in
            guard let shared = state.shared[maker], let outcome = shared.outcome else { return .until(nil) }
            if shared.joined <= 1 { state.shared[maker] = nil } else { state.shared[maker]?.joined -= 1 }
            return .ready(outcome)
        }
    }
}
