import RelayCore

/// Why a destination could not be set up for a run: its config (a missing credential, a bad
/// URL) or libcurl itself.
public enum DestinationError: Error, Sendable, CustomStringConvertible {
    case config(ConfigError)
    case transport(UploadTransportError)

    public var description: String {
        switch self {
        case .config(let error): error.description
        case .transport(let error): error.description
        }
    }
}
