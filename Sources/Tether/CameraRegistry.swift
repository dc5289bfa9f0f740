import Foundation
import PTPWire
import RelayCore

/// `cameras.json`: relay's client identity towards cameras, and the cameras it has tethered.
///
/// The client GUID is made once per state folder and kept: cameras pair with it, so a new one on
/// every run would make the photographer confirm the pairing again. Per camera (by serial number)
/// it keeps what a reconnect or a later run needs: where it was last found, and whether the photos
/// that were on its card at the first connection have been recorded as not to be taken.
/// Per address (`host:port`, what the photographer types before relay knows the body) it keeps
/// the id and name `relay pair` set for a body paired with them, e.g. with the vendor's software.
///
/// The contents' box also serializes `change`'s load and save of the file.
public final class CameraRegistry: Sendable {
    public struct KnownCamera: Codable, Sendable, Equatable {
        public var manufacturer: String
        public var model: String
        public var lastAddress: String
        public var firstConnected: Date
        public var lastConnected: Date
        /// The photos on the card at the first connection are in the seen log as "existing".
        public var existingPhotosRecorded: Bool
        /// What was on the card at relay's first listing of it (PTP/IP object handles in hex,
        /// libgphoto2 paths), kept until those photos are recorded: a connection that drops, or
        /// a relay that is killed, before then must not count what was shot meanwhile as already
        /// on the card. Absent in files written before it existed.
        public var firstListing: [String]?
    }

    /// How relay introduces itself to the camera at one address, set by `relay pair`.
    public struct Pairing: Codable, Sendable, Equatable {
        /// 32 hex digits; nil: the machine's own client GUID.
        public var guid: String?
        /// The name announced in InitCommandRequest; nil: "relay on HOSTNAME".
        public var name: String?
        /// The body that accepted this id, once one has.
        public var model: String?
        public var serial: String?
        public var paired: Date?

        public init(guid: String? = nil, name: String? = nil, model: String? = nil, serial: String? = nil, paired: Date? = nil) {
            self.guid = guid
            self.name = name
            self.model = model
            self.serial = serial
            self.paired = paired
        }

        /// The id's 16 bytes, when one is set.
        public var guidBytes: [UInt8]? { guid.flatMap(PTPIPGUID.parse) }
    }

    struct Contents: Codable, Equatable {
        var clientGUID: String
        var cameras: [String: KnownCamera]
        /// By "host:port"; absent in files written before pairing existed.
        var pairings: [String: Pairing]?
    }

    private let file: JSONStateFile<Contents>
    private let contents: LockedBox<Contents>

    /// Loads the registry, creating the client GUID on first use. A file that does not parse is
    /// an error and is left untouched (the message says how to restore its last good copy).
    public init(home: RelayHome) throws(StateFileError) {
        file = JSONStateFile(url: home.camerasFile, keepsLastGood: true, validate: Self.problem)
        if let loaded = try file.load() {
            contents = LockedBox(loaded)
        } else {
            let fresh = Contents(clientGUID: Self.newGUID(), cameras: [:])
            try file.save(fresh)
            contents = LockedBox(fresh)
        }
    }

    /// What makes a file that parses unusable, if anything: ids that are not 32 hex digits.
    @Sendable private static func problem(_ loaded: Contents) -> String? {
        guard Self.guidBytes(loaded.clientGUID) != nil else {
            return "clientGUID '\(loaded.clientGUID)' is not 32 hex digits"
        }
        for (address, pairing) in loaded.pairings ?? [:] where pairing.guid != nil && pairing.guidBytes == nil {
            return "pairings.\(address).guid '\(pairing.guid ?? "")' is not 32 hex digits"
        }
        return nil
    }

    /// Reads the file again, so that a pairing made by `relay pair` while relay runs is used at
    /// the next connection.
    public func reload() throws(StateFileError) {
        guard let loaded = try file.load() else { return }
        contents.withLockedValue { $0 = loaded }
    }

    /// The id and name set for the camera at `address` ("host:port"), if any.
    public func pairing(for address: String) -> Pairing? {
        contents.withLockedValue { $0.pairings?[address] }
    }

    /// Records how relay introduces itself to the camera at `address`, and the body that
    /// accepted it.
    public func notePaired(address: String, _ pairing: Pairing) throws(StateFileError) {
        try change { contents in contents.pairings = (contents.pairings ?? [:]).merging([address: pairing]) { $1 } }
    }

    /// The 16 bytes sent in every InitCommandRequest.
    public var clientGUID: [UInt8] {
        contents.withLockedValue { Self.guidBytes($0.clientGUID) ?? [] }
    }

    public func camera(serial: String) -> KnownCamera? {
        contents.withLockedValue { $0.cameras[serial] }
    }

    /// Serial numbers of the cameras relay has tethered, most recently connected first.
    public var knownSerials: [String] {
        contents.withLockedValue { $0.cameras.sorted { $0.value.lastConnected > $1.value.lastConnected }.map(\.key) }
    }

    /// Records a connection to the camera with `serial` at `address`; returns whether relay had
    /// connected to it before.
    @discardableResult
    public func noteConnected(
        serial: String, manufacturer: String, model: String, address: String,
        at date: Date = Date()
    ) throws(StateFileError) -> Bool {
        try change { contents in
            let known = contents.cameras[serial]
            contents.cameras[serial] = KnownCamera(
                manufacturer: manufacturer, model: model, lastAddress: address,
                firstConnected: known?.firstConnected ?? date, lastConnected: date,
                existingPhotosRecorded: known?.existingPhotosRecorded ?? false, firstListing: known?.firstListing)
            return known != nil
        }
    }

    /// Keeps what was on the camera's card at relay's first listing of it, until
    /// ``noteExistingPhotosRecorded(serial:)``.
    public func noteFirstListing(serial: String, _ objects: [String]) throws(StateFileError) {
        try change { contents in
            guard contents.cameras[serial]?.existingPhotosRecorded == false else { return }
            contents.cameras[serial]?.firstListing = objects
        }
    }

    /// Marks the photos on the camera's card at its first connection as recorded.
    public func noteExistingPhotosRecorded(serial: String) throws(StateFileError) {
        try change { contents in
            contents.cameras[serial]?.existingPhotosRecorded = true
            contents.cameras[serial]?.firstListing = nil
        }
    }

    /// Applies `body` to what the file holds now (another relay, `relay pair`, may have changed
    /// it since it was read) and saves the result.
    private func change<T>(_ body: (inout Contents) -> T) throws(StateFileError) -> T {
        try contents.withLockedValue { (contents: inout Contents) throws(StateFileError) -> T in
            if let current = try file.load() { contents = current }
            var next = contents
            let result = body(&next)
            if next != contents {
                try file.save(next)
                contents = next
            }
            return result
        }
    }

    static func newGUID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func guidBytes(_ hex: String) -> [UInt8]? {
        hex.count == PTPIPGUID.byteCount * 2 ? PTPIPGUID.parse(hex) : nil
    }
}
