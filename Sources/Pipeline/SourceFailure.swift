import Foundation
import RelayCore

/// The first source of a run that reported itself unusable (`SourceEvent.unusable`): the run
/// stops and `relay run` exits with its message, instead of waiting on a source that cannot work.
final class SourceFailure: Sendable {
    private let first = LockedBox<String?>(nil)

    func record(_ message: String) {
        first.withLockedValue { if $0 == nil { $0 = message } }
    }

    var message: String? { first.current }
}
