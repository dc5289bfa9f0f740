import Foundation

/// The first source of a run that reported itself unusable (`TetherEvent.unusable`): the run
/// stops and `relay run` exits with its message, instead of waiting on a source that cannot work.
final class SourceFailure: @unchecked Sendable {
    private let lock = NSLock()
    private var first: String?

    func record(_ message: String) {
        lock.withLock { if first == nil { first = message } }
    }

    var message: String? { lock.withLock { first } }
}
