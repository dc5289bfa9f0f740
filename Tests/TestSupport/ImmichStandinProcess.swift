import Foundation

/// One asset as the Immich stand-in holds it (`GET /__standin/state`).
public struct ImmichAsset: Decodable, Sendable, Equatable {
    public var id: String
    public var deviceAssetId: String
    public var deviceId: String
    public var fileCreatedAt: String
    public var fileModifiedAt: String
    public var originalFileName: String
    /// The SHA-1 of the stored bytes in base64, as Immich keeps it.
    public var checksum: String
    public var bytes: Int
    public var isTrashed: Bool
    /// Every text field of the upload, as received.
    public var fields: [String: String]
}

/// One album as the stand-in holds it.
public struct ImmichAlbum: Decodable, Sendable, Equatable {
    public var id: String
    public var albumName: String
    public var createdAt: String
    public var assetIds: [String]
}

/// One request the stand-in received (its Immich routes only).
public struct ImmichRequest: Decodable, Sendable {
    public var seq: Int
    public var method: String
    public var path: String
    /// The status code, "pending" or "dropped".
    public var status: String
    public var deviceAssetId: String?
    public var checksumHeader: String?
    /// Whether `x-immich-checksum` named the bytes sent (the stand-in's diagnostic; Immich never compares).
    public var checksumHeaderMatches: Bool?
    /// The SHA-1 (hex) of the `assetData` bytes received.
    public var sha1: String?
    public var outcome: String?
    public var bodyBytes: Int?

    private enum CodingKeys: String, CodingKey {
        case seq, method, path, status, deviceAssetId, checksumHeader, checksumHeaderMatches, sha1, outcome, bodyBytes
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        method = try container.decode(String.self, forKey: .method)
        path = try container.decode(String.self, forKey: .path)
        if let code = try? container.decode(Int.self, forKey: .status) {
            status = String(code)
        } else {
            status = try container.decode(String.self, forKey: .status)
        }
        deviceAssetId = try container.decodeIfPresent(String.self, forKey: .deviceAssetId)
        checksumHeader = try container.decodeIfPresent(String.self, forKey: .checksumHeader)
        checksumHeaderMatches = try container.decodeIfPresent(Bool.self, forKey: .checksumHeaderMatches)
        sha1 = try container.decodeIfPresent(String.self, forKey: .sha1)
        outcome = try container.decodeIfPresent(String.self, forKey: .outcome)
        bodyBytes = try container.decodeIfPresent(Int.self, forKey: .bodyBytes)
    }
}

/// What the stand-in holds and was asked.
public struct ImmichState: Decodable, Sendable {
    public var assets: [ImmichAsset]
    public var albums: [ImmichAlbum]
    public var requests: [ImmichRequest]
}

public enum ImmichStandinError: Error, CustomStringConvertible {
    case pythonMissing
    case didNotStart(String)
    case badAnswer(String)

    public var description: String {
        switch self {
        case .pythonMissing: "python3 is not on PATH; the Immich stand-in needs it"
        case .didNotStart(let detail): "the Immich stand-in did not start: \(detail)"
        case .badAnswer(let detail): "the Immich stand-in answered unexpectedly: \(detail)"
        }
    }
}

/// `scripts/immich_standin.py` (Immich's upload and album API as read in its server code, see
/// docs/IMMICH.md) running as a real HTTP server in a fresh folder, read back through its
/// `/__standin/` routes with `RawHTTP`, independent of the uploader under test.
public final class ImmichStandinProcess {
    public let process: Subprocess
    public let directory: URL
    public let host: String
    public let port: Int
    /// The accepted API keys, each its own user (the first is the one tests use).
    public let apiKeys: [String]
    /// `immich://HOST:PORT/`, a config's URL for it.
    public var configURL: String { "immich://\(host):\(port)/" }

    /// Starts the stand-in with `apiKeys` (`KEY` or `KEY:PERM,PERM`) and extra fault flags, in
    /// `directory` (a fresh one when nil: a restarted stand-in given the same folder keeps its
    /// assets); waits up to `startTimeout` for its listening line. `port` 0 picks a free one.
    public init(
        apiKeys: [String] = ["relay-test-key"], arguments: [String] = [], directory: URL? = nil, port: Int = 0,
        startTimeout: TimeInterval = 30
    ) throws {
        guard let python = Subprocess.which("python3") else { throw ImmichStandinError.pythonMissing }
        self.directory = try directory ?? TestPaths.makeTemporaryDirectory("immich")
        self.apiKeys = apiKeys.map { String($0.split(separator: ":", maxSplits: 1).first ?? "") }
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/immich_standin.py").path
        let keys = apiKeys.flatMap { ["--api-key", $0] }
        process = try Subprocess(
            python, ["-S", "-u", script, "--dir", self.directory.path, "--host", "127.0.0.1", "--port", String(port)] + keys + arguments)
        let line = process.line(after: "immich stand-in listening on http://", timeout: startTimeout)
        guard let address = line, let colon = address.lastIndex(of: ":"), let bound = Int(address[address.index(after: colon)...]) else {
            let running = process.isRunning
            process.stop(timeout: 5)
            throw ImmichStandinError.didNotStart(
                (running ? "no listening line within \(Int(startTimeout)) s" : "exited with status \(process.process.terminationStatus)")
                    + "; stdout: \(process.stdout); stderr: \(process.stderr)")
        }
        host = String(address[..<colon])
        self.port = bound
    }

    deinit {
        stop()
    }

    /// Stops the server; its folder stays until the caller removes `directory`.
    public func stop() {
        if process.isRunning { process.stop(timeout: 10) }
    }

    public func state() throws -> ImmichState {
        let response = try RawHTTP.get(host: host, port: port, path: "/__standin/state")
        guard response.status == 200 else {
            throw ImmichStandinError.badAnswer("GET /__standin/state: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        do {
            return try JSONDecoder().decode(ImmichState.self, from: response.body)
        } catch {
            throw ImmichStandinError.badAnswer(
                "GET /__standin/state: \(error); body: \(String(decoding: response.body.prefix(500), as: UTF8.self))")
        }
    }

    /// Changes faults on the running stand-in (camelCase names of its flags: `loseFirst`, `maxBody`, …).
    public func setFaults(_ faults: [String: Any]) throws {
        let body = try JSONSerialization.data(withJSONObject: faults)
        let response = try RawHTTP.send(
            host: host, port: port, method: "POST", path: "/__standin/faults", headers: ["Content-Type": "application/json"], body: body)
        guard response.status == 200 else {
            throw ImmichStandinError.badAnswer(
                "POST /__standin/faults: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
    }
}
