import Foundation
import SSDP

/// A camera `relay discover` found, and how much it cost the camera to find it.
public struct DiscoveredCamera: Sendable, Equatable, Codable {
    /// How a camera was found: the cheaper ways come first, so that pairing prompts and
    /// single-session bodies (a Sony in "Send to Computer" allows one session) are spared.
    public enum Method: String, Sendable, Codable {
        /// It announced itself over SSDP; name and serial come from its UPnP description. No
        /// connection to its PTP/IP port was made.
        case announced
        /// Its PTP/IP port accepted a TCP connection, closed at once with nothing sent (no
        /// handshake, no session): it is there, but unnamed.
        case listening
        /// A PTP/IP handshake and GetDeviceInfo named it (`--identify`, or an older relay's
        /// scan): this costs the camera a connection and may show a pairing prompt.
        case identified
    }

    public var host: String
    public var port: UInt16
    public var manufacturer: String
    public var model: String
    public var serialNumber: String
    /// The name the camera gave (InitCommandAck, or the description's friendlyName).
    public var friendlyName: String
    /// Set when the camera speaks PTP/IP but refused relay (busy with another client, not
    /// paired); model and serial are then unknown.
    public var refusal: String?
    public var foundBy: Method
    /// The SSDP service type it announced (announced cameras).
    public var serviceType: String?
    /// Its UPnP unique device name, `uuid:…` (announced cameras).
    public var udn: String?
    /// Why the camera could not be named: an announced camera's description could not be read,
    /// or one that listens did not answer `--identify`'s handshake.
    public var note: String?

    public init(
        host: String, port: UInt16, manufacturer: String = "", model: String = "", serialNumber: String = "",
        friendlyName: String = "", refusal: String? = nil, foundBy: Method
    ) {
        self.host = host
        self.port = port
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.friendlyName = friendlyName
        self.refusal = refusal
        self.foundBy = foundBy
    }

    /// An announced camera, named from its description.
    public init(announced camera: AnnouncedCamera, port: UInt16) {
        let description = camera.description
        self.init(
            host: camera.host, port: port,
            manufacturer: description?.manufacturer ?? camera.service.vendor,
            model: description?.modelName ?? "", serialNumber: description?.serialNumber ?? "",
            friendlyName: description?.friendlyName ?? "", foundBy: .announced)
        serviceType = camera.service.rawValue
        udn = description?.udn
        note = camera.problem
    }

    /// `ptpip://HOST[:PORT]`, as `relay run --camera` takes it.
    public var url: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port == PTPIPClientOptions.defaultPort ? "ptpip://\(shown)" : "ptpip://\(shown):\(port)"
    }
}

/// How `relay discover` and `--camera auto` look for cameras.
public struct DiscoveryOptions: Sendable {
    public var addresses: [String]
    public var port: UInt16 = PTPIPClientOptions.defaultPort
    /// Where to search for SSDP announcements first; nil skips SSDP.
    public var ssdp: SSDPSearchOptions? = SSDPSearchOptions()
    /// Open a PTP/IP handshake and GetDeviceInfo to name a camera that listens but did not
    /// announce itself. Off by default: it costs the camera a connection.
    public var identify = false
    /// Full passes over the addresses; a camera still joining the network answers a later one.
    public var waves = 3
    /// Time from the start of one wave to the start of the next.
    public var waveInterval = 3.0
    /// Limit of one probe (a TCP connect; with `identify`, also the handshake and DeviceInfo).
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
