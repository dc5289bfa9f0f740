/// A first-in, first-out queue that holds at most `capacity` items: a push beyond that drops the
/// oldest item and counts it, so that a consumer that fell behind learns how much it missed
/// instead of holding up the producer or growing without bound.
public struct BoundedQueue<Element> {
    public let capacity: Int
    private var items: [Element] = []
    /// Index of the oldest item still held; items before it were taken or dropped.
    private var head = 0
    /// Items dropped since the last `takeAll`.
    public private(set) var dropped = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "a bounded queue holds at least one item")
        self.capacity = capacity
    }

    public var count: Int { items.count - head }
    public var isEmpty: Bool { count == 0 }

    /// Appends `item`, dropping the oldest one when the queue is full.
    public mutating func push(_ item: Element) {
        if count == capacity {
            head += 1
            dropped += 1
            // Compact now and then, so the dropped prefix does not grow without bound either.
            if head >= capacity {
                items.removeFirst(head)
                head = 0
            }
        }
        items.append(item)
    }

    /// Everything held, oldest first, with how many were dropped before them; empties the queue.
    public mutating func takeAll() -> (items: [Element], dropped: Int) {
        let taken = Array(items[head...])
        let lost = dropped
        items.removeAll(keepingCapacity: true)
        head = 0
        dropped = 0
        return (taken, lost)
    }
}
extension BoundedQueue: Sendable where Element: Sendable {}
