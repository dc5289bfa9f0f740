import Foundation
import PTPIP
import PTPWire
import RelayCore

/// `relay pair`: connects to one camera with the id and name relay is to use for it, again and
/// again while the photographer confirms the pairing on the body, and records them once the
/// camera lets relay in (a session opened and DeviceInfo read).
public struct CameraPairing: Sendable {
    public var camera: CameraAddress
    /// The id to announce; nil: the machine's client GUID.
    public var guid: [UInt8]?
    /// The name to announce; nil: "relay on HOSTNAME".
    public var name: String?
    /// How long to keep trying while the camera shows its pairing prompt.
    public var waitSeconds = 120.0
    /// Seconds between tries.
    public var retryInterval = 2.0

    public init(camera: CameraAddress, guid: [UInt8]? = nil, name: String? = nil) {
        self.camera = camera
        self.guid = guid
        self.name = name
    }

    /// Who accepted relay.
    public struct Paired: Sendable, Equatable {
        public var manufacturer: String
        public var model: String
        public var serial: String
    }

    /// The id and name relay announces: those given, else the ones set earlier for this address,
    /// else the machine's own.
    public func identity(registry: CameraRegistry) throws -> (guid: [UInt8], name: String) {
        guard case .ptpip(let host, let port) = camera else { throw CameraPairingError.needsAddress }
        let earlier = registry.pairing(for: PTPIPClientOptions(host: host, port: port, guid: [], friendlyName: "").address)
        return (guid ?? earlier?.guidBytes ?? registry.clientGUID, name ?? earlier?.name ?? CameraSource.friendlyName)
    }

    /// Tries until the camera accepts relay, the wait is over (`CameraSourceError.notPaired`, or
    /// the last connection error) or `stop` is set; `progress` hears about each refusal once.
    public func run(home: RelayHome, stop: StopFlag, progress: (String) -> Void) throws -> Paired {
        guard case .ptpip(let host, let port) = camera else {
            throw CameraPairingError.needsAddress
        }
        let registry = try CameraRegistry(home: home)
        let identity = try identity(registry: registry)
        let options = PTPIPClientOptions(
            host: host, port: port, guid: identity.guid, friendlyName: identity.name,
            connectTimeout: 5, ioTimeout: 10)
        let deadline = Date().addingTimeInterval(waitSeconds)
        var lastProblem = ""
        while true {
            do {
                let session = try CameraSourceError.explainingRefusal(host: host, port: port) { () throws(PTPIPError) in
                    try CameraSession.open(options, stop: stop) { stop.isStopped }
                }
                _ = try? session.client.transaction(.closeSession)
                session.client.close()
                let paired = Paired(
                    manufacturer: session.deviceInfo.manufacturer, model: session.deviceInfo.model,
                    serial: session.serial)
                try registry.notePaired(
                    address: options.address,
                    CameraRegistry.Pairing(
                        guid: PTPIPGUID.hex(options.guid), name: options.friendlyName, model: paired.model,
                        serial: paired.serial, paired: Date()))
                return paired
            } catch {
                if case PTPIPError.unsupportedCamera = error { throw error }
                if stop.isStopped || Date().addingTimeInterval(retryInterval) >= deadline { throw error }
                var problem = "\(error)"
                if case CameraSourceError.notPaired(_, let reason) = error {
                    problem = "the camera refused relay's id (InitFail, \(reason.code)): not paired yet; confirm the pairing on the camera"
                }
                if problem != lastProblem {
                    progress(problem + "; trying again until the camera lets relay in")
                    lastProblem = problem
                }
                if stop.sleep(retryInterval) { throw error }
            }
        }
    }
}

/// `relay pair` was given something it cannot pair with.
public enum CameraPairingError: Error, CustomStringConvertible {
    case needsAddress

    public var description: String {
        "relay pair needs the camera's address: --camera ptpip://HOST[:PORT] (find it with relay discover or on the camera's Wi-Fi screen)"
    }
}
