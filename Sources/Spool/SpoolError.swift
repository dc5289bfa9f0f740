import Foundation
import RelayCore

/// A spool operation that failed. Messages say what happened to the photo (nothing is lost).
public enum SpoolError: Error, Sendable, CustomStringConvertible {
    case locked(path: String, pid: String)
    case diskFull(path: String)
    case io(path: String, reason: String)
    case sourceUnreadable(path: String, reason: String)
    case state(StateFileError)

    public var description: String {
        switch self {
        case .locked(let path, let pid):
            return "another relay (pid \(pid)) is using the spool \(path): stop it first, or set RELAY_HOME to another folder"
        case .diskFull(let path):
            return "the disk holding \(path) is full (free some space; relay takes the photo once there is room)"
        case .io(let path, let reason):
            return "spool I/O failed at \(path): \(reason)"
        case .sourceUnreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .state(let error):
            return error.description
        }
    }
}
