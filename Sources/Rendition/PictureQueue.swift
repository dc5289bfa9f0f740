/// Who makes a picture next (pure: no threads, no clock), for ``PicturePool``: a fixed number
/// of slots, the delivery's renditions first (oldest first, since uploads wait for them in that
/// order), then the pages' pictures newest first (the picture an editor asked for last is the one
/// on their screen; one they swiped past is stale), with a bound on the pages' requests that wait:
/// past it, the oldest are turned away, to be asked again, rather than queue without end.
public struct PictureQueue: Sendable, Equatable {
    /// The kinds of picture work.
    public enum Work: Sendable, Equatable {
        /// A rendition an upload waits for: granted before any page work, never turned away.
        case delivery
        /// A picture a person waits for at a screen: newest first, the oldest turned away past
        /// the bound.
        case page
        /// Page work no screen waits for (the status page's thumbnails, the wall's pictures,
        /// each made on its own thread, one at a time): taken with page work, newest first, but
        /// never turned away, since nobody would ask again.
        case background
    }

    /// What a change decided: the requests that may start now, and those turned away.
    public struct Turn: Sendable, Equatable {
        public var granted: [Int] = []
        public var turnedAway: [Int] = []
    }

    /// How many pictures are made at once.
    public let slots: Int
    /// How many page requests may wait (background ones are not counted).
    public let pageLimit: Int
    /// The requests making a picture now.
    public private(set) var running: Set<Int> = []
    /// Deliveries waiting, oldest first.
    public private(set) var deliveries: [Int] = []
    /// Page and background requests waiting, oldest first (the last goes next).
    public private(set) var pages: [Waiting] = []

    /// A page or background request waiting.
    public struct Waiting: Sendable, Equatable {
        public var ticket: Int
        public var background: Bool
    }

    public init(slots: Int, pageLimit: Int) {
        self.slots = max(1, slots)
        self.pageLimit = max(0, pageLimit)
    }

    /// Request `ticket` (a number not used before) for `work` arrives.
    public mutating func arrive(_ ticket: Int, _ work: Work) -> Turn {
        var turn = Turn()
        switch work {
        case .delivery: deliveries.append(ticket)
        case .page, .background: pages.append(Waiting(ticket: ticket, background: work == .background))
        }
        grant(&turn)
        while pages.count(where: { !$0.background }) > pageLimit, let oldest = pages.firstIndex(where: { !$0.background }) {
            turn.turnedAway.append(pages.remove(at: oldest).ticket)
        }
        return turn
    }

    /// Request `ticket`, which was running, is done: its slot goes to the next.
    public mutating func finish(_ ticket: Int) -> Turn {
        var turn = Turn()
        running.remove(ticket)
        grant(&turn)
        return turn
    }

    /// Whether anything waits.
    public var isWaiting: Bool { !deliveries.isEmpty || !pages.isEmpty }

    private mutating func grant(_ turn: inout Turn) {
        while running.count < slots {
            let next: Int
            if !deliveries.isEmpty {
                next = deliveries.removeFirst()
            } else if let newest = pages.popLast() {
                next = newest.ticket
            } else {
                return
            }
            running.insert(next)
            turn.granted.append(next)
        }
    }
}
