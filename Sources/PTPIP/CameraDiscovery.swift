import Foundation
import PTPWire
import SocketIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A camera that answered a discovery probe.
public struct DiscoveredCamera: Sendable, Equatable, Codable {
    public var host: String
    public var port: UInt16
    public var manufacturer: String
    public var model: String
    public var serialNumber: String
    /// The name the camera gave in its InitCommandAck.
    public var friendlyName: String
    /// Set when the camera speaks PTP/IP but refused relay (busy with another client, not
    /// paired); model and serial are then unknown.
    public var refusal: String?

    /// `ptpip://HOST[:PORT]`, as `relay run --camera` takes it.
    public var url: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port == PTPIPClientOptions.defaultPort ? "ptpip://\(shown)" : "ptpip://\(shown):\(port)"
    }
}

/// How `relay discover` scans.
public struct DiscoveryOptions: Sendable {
    public var addresses: [String]
    public var port: UInt16 = PTPIPClientOptions.defaultPort
    /// Full passes over the addresses; a camera still joining the network answers a later one.
    public var waves = 3
    /// Time from the start of one wave to the start of the next.
    public var waveInterval = 3.0
    /// Limit of one probe (connect, handshake, DeviceInfo).
    public var timeout = 2.0
    /// Extra tries of an address that refused or did not answer (a camera's PTP/IP server
    /// starts a moment after its Wi-Fi).
    public var retries = 3
    public var retryDelay = 0.5
    /// Probes in flight at once.
    public var parallelism = 64
    public var guid: [UInt8]
    public var friendlyName: String

    public init(addresses: [String], guid: [UInt8], friendlyName: String) {
        self.addresses = addresses
        self.guid = guid
        self.friendlyName = friendlyName
    }
}

/// Finds PTP/IP cameras by connecting to every address of a range in parallel: what answers the
/// PTP/IP handshake is asked for its DeviceInfo (no session is opened, nothing on the camera
/// changes).
public enum CameraDiscovery {
    /// Scans in waves until a wave finds a camera or the waves are used up; `shouldStop` ends it
    /// early. Cameras are returned in address order.
    public static func scan(_ options: DiscoveryOptions, shouldStop: @escaping @Sendable () -> Bool = { false }) -> [DiscoveredCamera] {
        var found: [DiscoveredCamera] = []
        for wave in 0..<max(1, options.waves) {
            let started = SocketClock.now()
            found = scanOnce(options, shouldStop: shouldStop)
            if !found.isEmpty || shouldStop() || wave == options.waves - 1 { break }
            let pause = started + options.waveInterval - SocketClock.now()
            if pause > 0 { usleep(useconds_t(pause * 1_000_000)) }
        }
        return found
    }

    /// One parallel pass over every address.
    static func scanOnce(_ options: DiscoveryOptions, shouldStop: @escaping @Sendable () -> Bool) -> [DiscoveredCamera] {
        let addresses = options.addresses
        let results = ProbeResults(count: addresses.count)
        let workers = DispatchGroup()
        for _ in 0..<min(max(1, options.parallelism), addresses.count) {
            workers.enter()
            let thread = Thread {
                while !shouldStop(), let index = results.takeIndex() {
                    results.store(probe(addresses[index], options: options, shouldStop: shouldStop), at: index)
                }
                workers.leave()
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        workers.wait()
        return results.cameras
    }

    /// Probes one address, retrying "refused" and "timed out", giving up at once on "no route".
    public static func probe(_ host: String, options: DiscoveryOptions,
                             shouldStop: @escaping @Sendable () -> Bool = { false }) -> DiscoveredCamera? {
        let clientOptions = PTPIPClientOptions(host: host, port: options.port, guid: options.guid,
                                               friendlyName: options.friendlyName,
                                               connectTimeout: options.timeout, ioTimeout: options.timeout)
        for attempt in 0...max(0, options.retries) {
            if attempt > 0 {
                if shouldStop() { return nil }
                usleep(useconds_t(options.retryDelay * 1_000_000))
            }
            do {
                let client = try PTPIPClient.connect(clientOptions, interrupt: shouldStop)
                defer { client.close() }
                let reply = try client.transaction(.getDeviceInfo, dataIn: .collect(limit: 1 << 20))
                guard reply.code.isOK, let info = try? PTPDeviceInfo(decoding: reply.data ?? []) else { return nil }
                return DiscoveredCamera(host: host, port: options.port, manufacturer: info.manufacturer, model: info.model,
                                        serialNumber: info.serialNumber, friendlyName: client.cameraName)
            } catch let error {
                switch error {
                case let .refused(_, reason):
                    return DiscoveredCamera(host: host, port: options.port, manufacturer: "", model: "", serialNumber: "",
                                            friendlyName: "", refusal: reason.description)
                case let .cannotConnect(_, socketError) where isWorthRetrying(socketError):
                    continue
                default:
                    return nil
                }
            }
        }
        return nil
    }

    /// Refused (the camera's server may not be up yet) and timed out (a lost packet) are worth
    /// another try; no route and an unknown host are not.
    static func isWorthRetrying(_ error: SocketError) -> Bool {
        switch error {
        case .timedOut: return true
        case let .system(_, _, code): return code == ECONNREFUSED || code == ECONNRESET || code == EINTR
        default: return false
        }
    }
}

/// The shared state of one scan's worker threads.
private final class ProbeResults: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private let count: Int
    private var found: [Int: DiscoveredCamera] = [:]

    init(count: Int) { self.count = count }

    func takeIndex() -> Int? {
        lock.withLock {
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func store(_ camera: DiscoveredCamera?, at index: Int) {
        guard let camera else { return }
        lock.withLock { found[index] = camera }
    }

    var cameras: [DiscoveredCamera] {
        lock.withLock { found.sorted { $0.key < $1.key }.map(\.value) }
    }
}
