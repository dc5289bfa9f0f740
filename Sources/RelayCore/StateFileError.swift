import Foundation

/// A state file (configs, history, spool sidecar, seen list) that could not be read or written.
///
/// The message names the file and what to do, because the user has to act on the file itself;
/// relay never replaces a file it could not parse.
public enum StateFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    /// `lastGood`: a good copy kept beside it (``JSONStateFile/lastGoodURL``), if there is one.
    case corrupt(path: String, reason: String, lastGood: String? = nil)
    case writeFailed(path: String, reason: String)

    public var path: String {
        switch self {
        case .unreadable(let path, _), .corrupt(let path, _, _), .writeFailed(let path, _): return path
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .corrupt(let path, let reason, let lastGood?):
            return "\(path) is not a valid relay file (\(reason)); it was left unchanged. "
                + "Its last good copy is beside it: cp '\(lastGood)' '\(path)' restores it (or fix the file by hand)."
        case .corrupt(let path, let reason, nil):
            return "\(path) is not a valid relay file (\(reason)); it was left unchanged. "
                + "Fix it, or move it away to start from an empty one."
        case .writeFailed(let path, let reason):
            return "cannot write \(path): \(reason). Check free disk space and permissions."
        }
    }
}
