import PTPWire
import SocketIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why talking to a camera failed, worded so that the photographer knows what to check.
///
/// Every case names the camera's address. `isRetryable` separates what a reconnect can cure (the
/// camera is off, asleep, out of range, busy) from what it cannot (it speaks something else).
public enum PTPIPError: Error, Sendable, CustomStringConvertible {
    /// The TCP connection could not be made (refused, no route, timed out, unknown host).
    case cannotConnect(peer: String, SocketError)
    /// The camera answered the handshake with InitFail.
    case refused(peer: String, reason: InitFailReason)
    /// A read or write failed in the middle of the session.
    case socket(peer: String, SocketError)
    /// The camera closed the connection while relay waited for `waitingFor`.
    case closedByCamera(peer: String, waitingFor: String)
    /// Nothing arrived within the timeout.
    case timedOut(peer: String, waitingFor: String, seconds: Double)
    /// The camera sent something the protocol does not allow here.
    case protocolViolation(peer: String, detail: String)
    /// An operation the session depends on was answered with an error code.
    case operationFailed(peer: String, operation: PTPOperationCode, response: PTPResponseCode)
    /// Where the data went failed (a full disk): the transaction was abandoned mid-phase, so
    /// the session cannot go on.
    case sinkFailed(any Error)
    /// The caller asked to stop while relay waited for the camera.
    case interrupted
    /// The body is one relay does not speak to over Wi-Fi (`brand`, e.g. "Fujifilm"): retrying
    /// cannot help, so the source gives up at once.
    case unsupportedCamera(peer: String, brand: String, model: String?)

    public var description: String {
        switch self {
        case .cannotConnect(let peer, let error):
            return "cannot reach the camera at \(peer): \(Self.explain(error))"
        case .refused(let peer, let reason):
            return "the camera at \(peer) refused the connection: \(reason)"
        case .socket(let peer, let error):
            return "the connection to the camera at \(peer) failed: \(Self.explain(error))"
        case .closedByCamera(let peer, let waitingFor):
            return
                "the camera at \(peer) closed the connection while relay waited for \(waitingFor) (camera asleep, switched off or out of range?)"
        case .timedOut(let peer, let waitingFor, let seconds):
            return "the camera at \(peer) did not answer \(waitingFor) within \(Self.seconds(seconds)) s (out of Wi-Fi range or asleep?)"
        case .protocolViolation(let peer, let detail):
            return "the camera at \(peer) broke the PTP/IP protocol: \(detail)"
        case .operationFailed(let peer, let operation, let response):
            return "the camera at \(peer) answered \(operation) with \(response)"
        case .sinkFailed(let error):
            return "could not store what the camera sent: \(error)"
        case .interrupted:
            return "stopped while waiting for the camera"
        case .unsupportedCamera(let peer, let brand, let model):
            let body = [brand, model].compactMap { $0 }.joined(separator: " ")
            return "the camera at \(peer) is a \(body), which relay does not support over Wi-Fi: let the camera upload "
                + "to relay by FTP instead (relay run --ftp 2121 --ftp-user NAME; relay ftp-setup --ftp-user NAME says what to "
                + "type into the camera)"
        }
    }

    /// Whether trying again later can help.
    public var isRetryable: Bool {
        switch self {
        case .interrupted, .unsupportedCamera: return false
        default: return true
        }
    }

    /// A socket error in the words of someone setting up a camera.
    static func explain(_ error: SocketError) -> String {
        switch error {
        case .system(_, _, let code) where code == ECONNREFUSED:
            return
                "connection refused (nothing listens there: is the camera on, with its Wi-Fi remote/PC connection mode enabled, and is the address right?)"
        case .system(_, _, let code) where code == EHOSTUNREACH || code == ENETUNREACH:
            return "no route to the address (is this machine on the camera's network?)"
        case .system(_, _, let code) where code == ECONNRESET:
            return "connection reset by the camera"
        case .timedOut:
            return "no answer in time (wrong address, or the camera is out of range)"
        case .cannotResolve(let host, _):
            return "unknown host name '\(host)' (give the camera's IP address, e.g. ptpip://192.168.1.2)"
        case .closedByPeer:
            return "the camera closed the connection"
        default:
            return error.description
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// The reason field of InitFail, in words.
public struct InitFailReason: Sendable, Equatable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// "Busy with another client": the only reason that says nothing about pairing.
    public static let busy: UInt32 = 2

    /// "reason 1", for messages that explain the reason themselves.
    public var code: String { "reason \(rawValue)" }

    public var description: String {
        switch rawValue {
        case 1: return "relay was rejected (pair this computer with the camera, or allow it in the camera's Wi-Fi settings)"
        case 2:
            return "the camera is busy with another client (close EOS Utility, the camera's phone app, gphoto2 or another relay; "
                + "a Sony lets one connection in per activation: choose PC Remote or Send to Computer on it again)"
        case 3: return "no reason given (switch the camera's Wi-Fi off and on again)"
        default:
            let code = PTPResponseCode(UInt16(truncatingIfNeeded: rawValue))
            return rawValue <= 0xFFFF && code.name != nil ? "reason \(code)" : "reason code \(rawValue)"
        }
    }
}
