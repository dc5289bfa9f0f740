/// relay's exit codes, as documented in `relay --help`, so scripts can tell problems apart.
public enum ExitCode: Int32, CaseIterable, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
    case config = 3
    case stateFile = 4
    case source = 5
    case busy = 6

    public var meaning: String {
        switch self {
        case .success: return "success (for run: stopped cleanly by SIGINT/SIGTERM)"
        case .failure: return "the work failed for another reason (message on stderr)"
        case .usage: return "unknown command, flag or bad flag value"
        case .config: return "no usable request config (none selected, invalid field, unset ${VAR})"
        case .stateFile: return "a state file could not be read or written (corrupt JSON, disk full); it was left unchanged"
        case .source:
            return "the photo source cannot be used (folder missing or unreadable, no network to find a camera on, "
                + "a camera relay does not support over Wi-Fi, a camera relay pair could not pair)"
        case .busy: return "another relay is already running with this state folder"
        }
    }
}

/// A command failed; the message is printed on stderr and the process exits with `code`.
public struct CommandFailure: Error, CustomStringConvertible {
    public let code: ExitCode
    public let message: String

    public init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// A usage error for an option's value: "--burst 'zero': expected a whole number …".
    public static func badValue(_ option: String, _ value: String, expected: String) -> CommandFailure {
        CommandFailure(.usage, "\(option) '\(value)': expected \(expected)")
    }
}
