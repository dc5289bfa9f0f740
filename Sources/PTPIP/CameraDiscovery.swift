import Foundation
import PTPWire
import RelayCore
import SSDP
import SocketIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds PTP/IP cameras at the lowest cost to them: first the cameras that announce themselves
/// over SSDP (Canon, Sony; named from their UPnP description, their PTP/IP port untouched), then
/// a plain TCP connect to the PTP/IP port of every other address of a range (closed at once,
/// nothing sent: no handshake, no session, no pairing prompt), or, only when asked, a PTP/IP
/// handshake and GetDeviceInfo on that connection for the bodies that did not announce themselves.
///
/// A handshake costs a camera: a paired body shows a prompt for an unknown client, and a Sony in
/// "Send to Computer" accepts one session per activation (libgphoto2 `camlibs/ptp2/library.c`,
/// the Sony PTP/IP connection sequence), which a probe would use up.
public enum CameraDiscovery {
    /// SSDP, then the TCP scan (with `identify`, a handshake on each connection it opens).
    /// `note` receives lines worth showing (SSDP could not listen everywhere). Announced
    /// cameras first, then the others in address order.
    public static func find(
        _ options: DiscoveryOptions, shouldStop: @escaping @Sendable () -> Bool = { false },
        note: (String) -> Void = { _ in }
    ) -> [DiscoveredCamera] {
        var announced: [DiscoveredCamera] = []
        if let ssdp = options.ssdp {
            let result = SSDPSearch.run(ssdp, shouldStop: shouldStop)
            result.notes.forEach(note)
            announced = result.cameras.map { DiscoveredCamera(announced: $0, port: options.port) }
        }
        if shouldStop() { return announced }
        var scanOptions = options
        scanOptions.addresses = options.addresses.filter { address in !announced.contains { $0.host == address } }
        if !announced.isEmpty { scanOptions.waves = 1 }
        let scan = scanOptions
        // With `identify`, the handshake goes over the scan's own connection: a body that serves
        // one connection at a time would have nothing left for a second one.
        let found = self.scan(scan, shouldStop: shouldStop) { host in
            scan.identify
                ? identifyProbe(host, options: scan, shouldStop: shouldStop) : listeningProbe(host, options: scan, shouldStop: shouldStop)
        }
        return announced + found
    }

    /// Scans in waves until a wave finds a camera or the waves are used up; `shouldStop` ends it
    /// early. Cameras are returned in address order.
    static func scan(
        _ options: DiscoveryOptions, shouldStop: @escaping @Sendable () -> Bool,
        probe: @escaping @Sendable (String) -> DiscoveredCamera?
    ) -> [DiscoveredCamera] {
        var found: [DiscoveredCamera] = []
        for wave in 0..<max(1, options.waves) {
            let started = SocketClock.now()
            found = scanOnce(options.addresses, parallelism: options.parallelism, shouldStop: shouldStop, probe: probe)
            if !found.isEmpty || shouldStop() || wave >= options.waves - 1 { break }
            let pause = started + options.waveInterval - SocketClock.now()
            if pause > 0 { usleep(useconds_t(pause * 1_000_000)) }
        }
        return found
    }

    /// One parallel pass over every address.
    static func scanOnce(
        _ addresses: [String], parallelism: Int, shouldStop: @escaping @Sendable () -> Bool,
        probe: @escaping @Sendable (String) -> DiscoveredCamera?
    ) -> [DiscoveredCamera] {
        let results = ProbeResults(count: addresses.count)
        let workers = DispatchGroup()
        for _ in 0..<min(max(1, parallelism), addresses.count) {
            workers.enter()
            let thread = Thread {
                while !shouldStop(), let index = results.takeIndex() {
                    results.store(probe(addresses[index]), at: index)
                }
                workers.leave()
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        workers.wait()
        return results.cameras
    }

    /// Whether `host` accepts a TCP connection on the PTP/IP port: connected and closed at once,
    /// nothing sent. Retries "refused" and "timed out"; gives up at once on "no route".
    public static func listeningProbe(
        _ host: String, options: DiscoveryOptions,
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) -> DiscoveredCamera? {
        withRetries(options, shouldStop: shouldStop) { () throws -> DiscoveredCamera? in
            let connection = try TCPConnection.connect(host: host, port: options.port, timeout: options.timeout)
            connection.close()
            return DiscoveredCamera(host: host, port: options.port, foundBy: .listening)
        }
    }

    /// Names the camera at `host` with a PTP/IP handshake and GetDeviceInfo (no session is
    /// opened, nothing on the camera changes, but the connection itself may cost it; see above).
    public static func identifyProbe(
        _ host: String, options: DiscoveryOptions,
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) -> DiscoveredCamera? {
        let clientOptions = PTPIPClientOptions(
            host: host, port: options.port, guid: options.guid,
            friendlyName: options.friendlyName,
            connectTimeout: options.timeout, ioTimeout: options.timeout)
        return withRetries(options, shouldStop: shouldStop) { () throws -> DiscoveredCamera? in
            do throws(PTPIPError) {
                let client = try PTPIPClient.connect(clientOptions, interrupt: shouldStop)
                defer { client.close() }
                let reply = try client.transaction(.getDeviceInfo, dataIn: .collect(limit: 1 << 20))
                guard reply.code.isOK else { return unidentified(host, options, "it answered GetDeviceInfo with \(reply.code)") }
                guard let info = try? PTPDeviceInfo(decoding: reply.data ?? []) else {
                    return unidentified(host, options, "its DeviceInfo could not be read")
                }
                return DiscoveredCamera(
                    host: host, port: options.port, manufacturer: info.manufacturer, model: info.model,
                    serialNumber: info.serialNumber, friendlyName: client.cameraName, foundBy: .identified)
            } catch let error {
                switch error {
                case .refused(_, let reason):
                    return DiscoveredCamera(host: host, port: options.port, refusal: reason.description, foundBy: .identified)
                case .cannotConnect(_, let socketError):
                    throw socketError
                default:
                    return unidentified(host, options, "it took the connection but not relay's PTP/IP handshake (\(error))")
                }
            }
        }
    }

    /// A camera that listens but could not be named, with the reason.
    private static func unidentified(_ host: String, _ options: DiscoveryOptions, _ reason: String) -> DiscoveredCamera {
        var camera = DiscoveredCamera(host: host, port: options.port, foundBy: .identified)
        camera.note = reason
        return camera
    }

    /// Runs `attempt`, trying again after a socket error worth retrying; nil after the last try
    /// or any other error.
    private static func withRetries(
        _ options: DiscoveryOptions, shouldStop: @Sendable () -> Bool,
        _ attempt: () throws -> DiscoveredCamera?
    ) -> DiscoveredCamera? {
        for number in 0...max(0, options.retries) {
            if number > 0 {
                if shouldStop() { return nil }
                usleep(useconds_t(options.retryDelay * 1_000_000))
            }
            do {
                return try attempt()
            } catch {
                guard let socketError = error as? SocketError, isWorthRetrying(socketError) else { return nil }
            }
        }
        return nil
    }

    /// Refused (the camera's server may not be up yet) and timed out (a lost packet) are worth
    /// another try; no route and an unknown host are not.
    static func isWorthRetrying(_ error: SocketError) -> Bool {
        switch error {
        case .timedOut: return true
        case .system(_, _, let code): return code == ECONNREFUSED || code == ECONNRESET || code == EINTR
        default: return false
        }
    }
}

/// The shared state of one scan's worker threads: the next address to probe and the cameras
/// found so far, by address index.
private final class ProbeResults: Sendable {
    private struct Progress: Sendable {
        var next = 0
        var found: [Int: DiscoveredCamera] = [:]
    }

    private let progress = LockedBox(Progress())
    private let count: Int

    init(count: Int) { self.count = count }

    func takeIndex() -> Int? {
        progress.withLockedValue { progress in
            guard progress.next < count else { return nil }
            defer { progress.next += 1 }
            return progress.next
        }
    }

    func store(_ camera: DiscoveredCamera?, at index: Int) {
        guard let camera else { return }
        progress.withLockedValue { $0.found[index] = camera }
    }

    var cameras: [DiscoveredCamera] {
        progress.withLockedValue { $0.found.sorted { $0.key < $1.key }.map(\.value) }
    }
}
