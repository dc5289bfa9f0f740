import Foundation
import RelayCore

/// The first source of a run that reported itself unusable (`SourceEvent.unusable`): the run
/// stops and `relay run` exits with its message, instead of waiting on a source that cannot work.
final class SourceFailure: Sendable {
    private let first = LockedBox<String?>(nil)
    private let happened = StopFlag()

    func record(_ message: String) {
        first.withLockedValue { if $0 == nil { $0 = message } }
        happened.stop()
    }

    var message: String? { first.current }

    /// Calls `body` once a source failed (at once if one has).
    func onFailure(_ body: @escaping @Sendable () -> Void) {
        happened.onStop(body)
    }
}
