import Foundation
import PTPIP
import RelayCore
import RunEvents

/// Where `--camera auto` connects, at the lowest cost to the cameras around: the address the
/// last tethered camera was at (a plain TCP connect checks it listens), then the cameras that
/// announce themselves over SSDP, then a plain TCP connect scan of the range. No PTP/IP
/// connection is opened while looking; only the chosen camera gets one (the tether's session).
///
/// Owned by the one thread that runs the camera source.
final class AutoCameraFinder {
    private let registry: CameraRegistry
    private let addresses: [String]?
    private let connectTimeout: Double
    private let friendlyName: String
    /// Whether the last address was tried since the last session opened: a body that answers
    /// there but fails its session is looked for afresh on the next attempt.
    private var lastAddressTried = false

    init(registry: CameraRegistry, addresses: [String]?, connectTimeout: Double, friendlyName: String) {
        self.registry = registry
        self.addresses = addresses
        self.connectTimeout = connectTimeout
        self.friendlyName = friendlyName
    }

    /// A session opened: the next search starts at its address again.
    func sessionOpened() {
        lastAddressTried = false
    }

    /// The camera to connect to. `expectedSerial` is the camera this run already tethers.
    func find(expectedSerial: String?, stop: StopFlag, report: SourceReporter) throws -> (String, UInt16) {
        var options = DiscoveryOptions(addresses: [], guid: registry.clientGUID, friendlyName: friendlyName)
        options.timeout = min(connectTimeout, options.timeout)
        let recent = Self.recentAddresses(expectedSerial: expectedSerial, registry: registry)
        if !lastAddressTried, let (host, port) = recent.first {
            lastAddressTried = true
            var once = options
            once.port = port
            once.retries = 0
            if CameraDiscovery.listeningProbe(host, options: once, shouldStop: { stop.isStopped }) != nil {
                report(.info("trying \(host):\(port), where the camera was last"))
                return (host, port)
            }
        }
        options.addresses = addresses ?? NetworkInterfaces.defaultScanAddresses()
        guard !options.addresses.isEmpty else { throw CameraSourceError.noNetwork }
        report(.connecting("camera: looking for a camera (SSDP announcements, then \(options.addresses.count) addresses)"))
        let found = CameraDiscovery.find(options, shouldStop: { stop.isStopped }).filter { $0.refusal == nil }
        let knownSerials = [expectedSerial].compactMap { $0 } + registry.knownSerials
        guard let camera = Self.choose(from: found, knownSerials: knownSerials, recentHosts: recent.map(\.host)) else {
            throw CameraSourceError.notFound(addressCount: options.addresses.count, expectedSerial: expectedSerial)
        }
        if found.count > 1 {
            report(
                .info(
                    "found \(found.count) cameras; using \(camera.model.isEmpty ? "the one" : camera.model) at \(camera.url) "
                        + "(give --camera \(found.first { $0 != camera }?.url ?? "ptpip://…") for another)"))
        }
        return (camera.host, camera.port)
    }

    /// The preferred camera: one that announced a serial relay tethered before, then one at an
    /// address a known camera was last at, then the first that announced itself, then the first
    /// that listens.
    static func choose(from found: [DiscoveredCamera], knownSerials: [String], recentHosts: [String]) -> DiscoveredCamera? {
        for serial in knownSerials where !serial.isEmpty {
            if let camera = found.first(where: { $0.serialNumber == serial }) { return camera }
        }
        for host in recentHosts {
            if let camera = found.first(where: { $0.host == host }) { return camera }
        }
        return found.first { $0.foundBy == .announced } ?? found.first
    }

    /// Where known cameras were last connected: the expected one first, then most recent first.
    static func recentAddresses(expectedSerial: String?, registry: CameraRegistry) -> [(host: String, port: UInt16)] {
        let serials = [expectedSerial].compactMap { $0 } + registry.knownSerials
        return serials.compactMap { registry.camera(serial: $0).flatMap { hostAndPort($0.lastAddress) } }
    }

    /// "HOST:PORT" or "[V6]:PORT", as `PTPIPClientOptions.address` writes it.
    static func hostAndPort(_ address: String) -> (host: String, port: UInt16)? {
        guard let colon = address.lastIndex(of: ":"), let port = UInt16(address[address.index(after: colon)...]) else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
