import Foundation
import RelayCore

/// `cameras.json`: relay's client identity towards cameras, and the cameras it has tethered.
///
/// The client GUID is made once per state folder and kept: cameras pair with it, so a new one on
/// every run would make the photographer confirm the pairing again. Per camera (by serial number)
/// it keeps what a reconnect or a later run needs: where it was last found, and whether the photos
/// that were on its card at the first connection have been recorded as not to be taken.
public final class CameraRegistry: @unchecked Sendable {
    public struct KnownCamera: Codable, Sendable, Equatable {
        public var manufacturer: String
        public var model: String
        public var lastAddress: String
        public var firstConnected: Date
        public var lastConnected: Date
        /// The photos on the card at the first connection are in the seen log as "existing".
        public var existingPhotosRecorded: Bool
    }

    struct Contents: Codable, Equatable {
        var clientGUID: String
        var cameras: [String: KnownCamera]
    }

    private let file: JSONStateFile<Contents>
    private let lock = NSLock()
    private var contents: Contents

    /// Loads the registry, creating the client GUID on first use. A file that does not parse is
    /// an error and is left untouched.
    public init(home: RelayHome) throws(StateFileError) {
        file = JSONStateFile(url: home.camerasFile)
        if let loaded = try file.load() {
            guard Self.guidBytes(loaded.clientGUID) != nil else {
                throw .corrupt(path: file.url.path, reason: "clientGUID '\(loaded.clientGUID)' is not 32 hex digits")
            }
            contents = loaded
        } else {
            contents = Contents(clientGUID: Self.newGUID(), cameras: [:])
            try file.save(contents)
        }
    }

    /// The 16 bytes sent in every InitCommandRequest.
    public var clientGUID: [UInt8] {
        lock.withLock { Self.guidBytes(contents.clientGUID) ?? [] }
    }

    public func camera(serial: String) -> KnownCamera? {
        lock.withLock { contents.cameras[serial] }
    }

    /// Serial numbers of the cameras relay has tethered, most recently connected first.
    public var knownSerials: [String] {
        lock.withLock { contents.cameras.sorted { $0.value.lastConnected > $1.value.lastConnected }.map(\.key) }
    }

    /// Records a connection to the camera with `serial` at `address`; returns whether relay had
    /// connected to it before.
    @discardableResult
    public func noteConnected(serial: String, manufacturer: String, model: String, address: String,
                              at date: Date = Date()) throws(StateFileError) -> Bool {
        try change { contents in
            let known = contents.cameras[serial]
            contents.cameras[serial] = KnownCamera(
                manufacturer: manufacturer, model: model, lastAddress: address,
                firstConnected: known?.firstConnected ?? date, lastConnected: date,
                existingPhotosRecorded: known?.existingPhotosRecorded ?? false)
            return known != nil
        }
    }

    /// Marks the photos on the camera's card at its first connection as recorded.
    public func noteExistingPhotosRecorded(serial: String) throws(StateFileError) {
        try change { contents in contents.cameras[serial]?.existingPhotosRecorded = true }
    }

    private func change<T>(_ body: (inout Contents) -> T) throws(StateFileError) -> T {
        lock.lock()
        defer { lock.unlock() }
        var next = contents
        let result = body(&next)
        if next != contents {
            try file.save(next)
            contents = next
        }
        return result
    }

    static func newGUID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func guidBytes(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
