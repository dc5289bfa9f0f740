import Foundation
import RelayCore
import Spool
import Uploader

/// Why `relay run` could not start. Each case maps to a documented exit code.
public enum RunError: Error, CustomStringConvertible {
    case config(ConfigError)
    case state(StateFileError)
    case spool(SpoolError)
    case source(String)
    case uploader(DestinationError)

    public var description: String {
        switch self {
        case .config(let error): return error.description
        case .state(let error): return error.description
        case .spool(let error): return error.description
        case .source(let message): return message
        case .uploader(let error): return error.description
        }
    }
}
