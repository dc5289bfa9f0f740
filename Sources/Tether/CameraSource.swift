import Foundation
import Intake
import PTPIP
import RelayCore
import RunEvents
import Spool

/// Takes photos from a PTP/IP camera into the spool: connects (or finds the camera, for `auto`),
/// serves it with a ``TetherSession`` and, whenever the camera drops, sleeps or refuses, connects
/// again with backoff, until relay stops.
///
/// `@unchecked Sendable`: built on one thread and then run, whole, on the one thread that owns
/// the camera connection; `run(until:)` is its only entry point.
public final class CameraSource: PhotoSource, @unchecked Sendable {
    public struct Options: Sendable {
        public var address: CameraAddress
        /// Take RAW files too (by default they stay on the card and are counted as skipped).
        public var includeRAW = false
        /// Take what was on the card before relay first connected to this camera.
        public var includeExisting = false
        /// Bytes per GetPartialObject: what a dropped connection costs at most.
        public var chunkSize = Self.defaultChunkSize
        /// 1 MB (`--chunk-size 1M`), for PTP/IP and libgphoto2 alike: a dropped Wi-Fi link costs
        /// at most that much.
        public static let defaultChunkSize = 1_000_000
        /// Seconds between listings of the camera's files, which catch a missed event.
        public var crossCheckInterval = 10.0
        /// Seconds a session may send no operation before relay sends one: bodies end a session
        /// that sends none for a while (30 s is common; the events a body pushes do not count),
        /// and airnef keeps Sony sessions with an operation every 5 s.
        public var keepAliveSeconds = 5.0
        public var connectTimeout = 5.0
        public var ioTimeout = 10.0
        /// Waits between reconnects: 0.5 s doubling up to 10 s, so that a camera waking from
        /// sleep is back within seconds.
        public var reconnect = Backoff(base: 0.5, cap: 10)
        /// Addresses to scan for `auto`; nil for the machine's own networks.
        public var discoveryAddresses: [String]?
        /// A timed capture that fires this camera (`relay capture`).
        public var capture: (any CaptureHook)?

        public init(address: CameraAddress) {
            self.address = address
        }
    }

    public let options: Options
    public var label: String { "camera \(options.address)" }
    private var tether: CameraTether
    private let autoFinder: AutoCameraFinder

    /// Seconds a transfer in progress may go on after a stop request before it is cut.
    static let stopGrace = 0.8

    public init(
        options: Options, spool: Spool, home: RelayHome,
        report: SourceReporter
    ) throws(StateFileError) {
        self.options = options
        tether = try CameraTether(spool: spool, home: home, report: report)
        autoFinder = AutoCameraFinder(
            registry: tether.registry, addresses: options.discoveryAddresses,
            connectTimeout: options.connectTimeout, friendlyName: Self.friendlyName)
    }

    /// Waits between connections to a camera that refuses relay as not paired: slow, since the
    /// photographer has to act on the body, and the message is printed once.
    static let unpairedRetry = Backoff(base: 2, cap: 10)

    /// How relay introduces itself at `host:port`: the id and name `relay pair` set for that
    /// address (read again each time, so a pairing made meanwhile counts), else the machine's own.
    static func clientOptions(
        host: String, port: UInt16, registry: CameraRegistry,
        options: Options
    ) throws(StateFileError) -> PTPIPClientOptions {
        var clientOptions = PTPIPClientOptions(
            host: host, port: port, guid: registry.clientGUID, friendlyName: friendlyName,
            connectTimeout: options.connectTimeout, ioTimeout: options.ioTimeout)
        try registry.reload()
        let pairing = registry.pairing(for: clientOptions.address)
        if let guid = pairing?.guidBytes { clientOptions.guid = guid }
        if let name = pairing?.name { clientOptions.friendlyName = name }
        return clientOptions
    }

    /// The name cameras show for relay: "relay on HOSTNAME".
    public static var friendlyName: String {
        "relay on " + ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init)!
    }

    public func run(until stop: StopFlag) {
        let loop = CameraReconnectLoop(
            backoff: { error in
                if case CameraSourceError.notPaired = error { return Self.unpairedRetry }
                return self.options.reconnect
            },
            fatalMessage: { error in
                guard let error = error as? PTPIPError, !error.isRetryable else { return nil }
                return "\(error)"
            },
            shortReason: Self.shortReason, report: tether.report)
        tether.run(until: stop, loop: loop) { connected in try serveOnce(stop: stop, connected: connected) }
    }

    /// One connection: find and open the camera, serve it until it fails (throws) or relay stops.
    /// `connected` runs once the camera's session is open.
    private func serveOnce(stop: StopFlag, connected: () -> Void) throws {
        let (host, port) = try target(stop: stop)
        let clientOptions = try Self.clientOptions(host: host, port: port, registry: tether.registry, options: options)
        tether.report(.connecting("camera: connecting to \(clientOptions.address)"))
        let session = try CameraSourceError.explainingRefusal(host: host, port: port) { () throws(PTPIPError) in
            try CameraSession.open(clientOptions, stop: stop) { (stop.secondsSinceStop ?? 0) > Self.stopGrace }
        }
        autoFinder.sessionOpened()
        let arrival = try tether.arrived(
            serial: session.serial, name: session.name, manufacturer: session.deviceInfo.manufacturer,
            model: session.deviceInfo.model, address: clientOptions.address)
        connected()
        defer { if !stop.isStopped { options.capture?.cameraGone() } }
        let context = tether.sessionContext(options: options, stop: stop)
        do {
            try TetherSession(session: session, memory: arrival.memory, context: context, firstConnection: arrival.firstConnection).run()
        } catch {
            session.client.close()
            throw error
        }
    }

    /// Where to connect: the given address, or for `auto` the camera ``AutoCameraFinder`` picks
    /// without opening a PTP/IP connection to any other.
    private func target(stop: StopFlag) throws -> (String, UInt16) {
        switch options.address {
        case .ptpip(let host, let port):
            return (host, port)
        case .auto:
            return try autoFinder.find(expectedSerial: tether.expectedSerial, stop: stop, report: tether.report)
        }
    }

    /// A few words for the progress line.
    static func shortReason(_ error: Error) -> String {
        switch error {
        case PTPIPError.cannotConnect(_, let socket): return "\(socket)".components(separatedBy: ": ").last ?? "cannot connect"
        case PTPIPError.refused: return "camera refused the connection"
        case PTPIPError.closedByCamera: return "camera closed the connection"
        case PTPIPError.timedOut: return "camera stopped answering"
        case CameraSourceError.notPaired: return "camera not paired with relay"
        case is CameraSourceError: return "no camera found"
        default: return "camera error"
        }
    }
}

/// Why the camera source could not even try a camera, or the camera would not let relay in.
public enum CameraSourceError: Error, CustomStringConvertible {
    case noNetwork
    case notFound(addressCount: Int, expectedSerial: String?)
    /// The camera answered InitFail (other than "busy"): it does not know relay's client id.
    case notPaired(camera: CameraAddress, reason: InitFailReason)

    /// Runs `open`, turning an InitFail that is not "busy with another client" into `.notPaired`.
    static func explainingRefusal<T>(host: String, port: UInt16, _ open: () throws(PTPIPError) -> T) throws -> T {
        do {
            return try open()
        } catch let PTPIPError.refused(_, reason) where reason.rawValue != InitFailReason.busy {
            throw notPaired(camera: .ptpip(host: host, port: port), reason: reason)
        }
    }

    public var description: String {
        switch self {
        case .noNetwork:
            return "this machine has no IPv4 network to look for a camera on: join the camera's Wi-Fi, or give --range"
        case .notFound(let count, let serial):
            let which = serial.map { "the camera with serial \($0)" } ?? "a PTP/IP camera"
            return "no answer from \(which) on \(count) addresses (is it on, on this network, with remote/PC connection mode enabled?)"
        case .notPaired(let camera, let reason):
            return
                ([
                    "the camera at \(camera) refused relay (InitFail, \(reason.code)): not paired: run relay pair --camera \(camera)",
                    "  and on the camera:",
                ] + PairingGuide.steps(camera: camera).map { "  " + $0 })
                .joined(separator: "\n")
        }
    }
}

extension CameraSource.Options: CaptureSetting {
    public var label: String { "camera \(address)" }

    public func makeSource(spool: Spool, home: RelayHome, report: SourceReporter) throws -> any PhotoSource {
        try CameraSource(options: self, spool: spool, home: home, report: report)
    }
}
