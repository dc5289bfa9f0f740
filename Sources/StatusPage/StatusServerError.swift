import Foundation

/// Why the status page could not be served; each message says what to do.
public enum StatusServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another program (or another relay) listens there already.
    case portInUse(StatusAddress)
    /// Ports below 1024 need privileges relay should not have.
    case privilegedPort(StatusAddress)
    /// The address is not one of this machine's.
    case notThisMachine(StatusAddress)
    /// Any other failure to listen, with the system's words.
    case cannotListen(StatusAddress, String)
    /// libmicrohttpd refused to start.
    case serverFailed(StatusAddress)

    public var description: String {
        switch self {
        case .portInUse(let address):
            return "--status \(address): port \(address.port) is already in use by another program; choose another port"
        case .privilegedPort(let address):
            return "--status \(address): port \(address.port) needs administrator rights; choose a port from 1024 up, such as 8080"
        case .notThisMachine(let address):
            return "--status \(address): \(address.host) is not an address of this machine; use 0.0.0.0:\(address.port) for every network"
        case .cannotListen(let address, let reason):
            return "--status \(address): cannot listen there (\(reason))"
        case .serverFailed(let address):
            return "--status \(address): the status page's web server (libmicrohttpd) did not start"
        }
    }
}
