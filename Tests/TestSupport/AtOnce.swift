import Foundation

/// Independent parts of one test run at once, a thread each: they wait on processes and sockets
/// (a camera's shots, a gallery's answers, a fixed window of a peer), not on the CPU, so they
/// overlap where run one after the other their waits add up. The parts return what they saw and
/// the test checks it on its own thread afterwards, with the assertions it would have made inline.
public enum AtOnce {
    /// Runs `body(0)`, `body(1)`, … `body(count - 1)` at once; returns each one's result, in order.
    public static func run<Value: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Value) -> [Result<Value, Error>] {
        let results = Results<Value>(count)
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                results.set(index, Result { try body(index) })
                group.leave()
            }.start()
        }
        group.wait()
        return results.all
    }
}

private final class Results<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Result<Value, Error>?]

    init(_ count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<Value, Error>) { lock.withLock { values[index] = result } }

    var all: [Result<Value, Error>] { lock.withLock { values.map { $0! } } }
}
