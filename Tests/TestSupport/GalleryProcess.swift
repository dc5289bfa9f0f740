import Foundation

/// One photo as the gallery stored it (`GET /api/photos`).
public struct GalleryPhoto: Decodable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var bytes: Int
    public var sha256: String
    public var idempotencyKey: String?
    public var fields: [String: String]
    /// Part names of the multipart body in the order received (empty for raw uploads).
    public var parts: [String]
    public var receivedAt: String
}

/// One request the gallery received (`GET /api/requests`).
public struct GalleryRequest: Decodable, Sendable {
    public var seq: Int
    public var method: String
    public var path: String
    public var idempotencyKey: String?
    /// "pending" while it is being answered, then the status code, or "dropped".
    public var status: String
    public var time: Double
    public var clientPort: Int
    /// Request headers, names in lower case.
    public var headers: [String: String]
    public var bodyBytes: Int?
    /// Bytes of a body with a Content-Length received so far, while it arrives.
    public var receivedBytes: Int?

    public var statusCode: Int? { Int(status) }

    private enum CodingKeys: String, CodingKey {
        case seq, method, path, idempotencyKey, status, time, clientPort, headers, bodyBytes, receivedBytes
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        method = try container.decode(String.self, forKey: .method)
        path = try container.decode(String.self, forKey: .path)
        idempotencyKey = try container.decodeIfPresent(String.self, forKey: .idempotencyKey)
        if let code = try? container.decode(Int.self, forKey: .status) {
            status = String(code)
        } else {
            status = try container.decode(String.self, forKey: .status)
        }
        time = try container.decode(Double.self, forKey: .time)
        clientPort = try container.decode(Int.self, forKey: .clientPort)
        headers = try container.decode([String: String].self, forKey: .headers)
        bodyBytes = try container.decodeIfPresent(Int.self, forKey: .bodyBytes)
        receivedBytes = try container.decodeIfPresent(Int.self, forKey: .receivedBytes)
    }
}

/// Fault settings to change on a running gallery (`POST /api/faults`); nil leaves a setting as is.
public struct GalleryFaults: Encodable, Sendable {
    public var failRate: Double?
    public var failStatus: Int?
    public var failFirst: Int?
    public var dropFirst: Int?
    public var dropRate: Double?
    public var loseFirst: Int?
    public var retryAfter: Int?
    public var delay: Double?
    public var rejectName: String?
    public var rejectStatus: Int?

    public init(
        failRate: Double? = nil, failStatus: Int? = nil, failFirst: Int? = nil,
        dropFirst: Int? = nil, dropRate: Double? = nil, loseFirst: Int? = nil,
        retryAfter: Int? = nil, delay: Double? = nil, rejectName: String? = nil,
        rejectStatus: Int? = nil
    ) {
        self.failRate = failRate
        self.failStatus = failStatus
        self.failFirst = failFirst
        self.dropFirst = dropFirst
        self.dropRate = dropRate
        self.loseFirst = loseFirst
        self.retryAfter = retryAfter
        self.delay = delay
        self.rejectName = rejectName
        self.rejectStatus = rejectStatus
    }
}

public enum GalleryError: Error, CustomStringConvertible {
    case pythonMissing
    case didNotStart(String)
    case badAnswer(String)

    public var description: String {
        switch self {
        case .pythonMissing: return "python3 is not on PATH; the gallery needs it"
        case .didNotStart(let detail): return "the gallery did not start: \(detail)"
        case .badAnswer(let detail): return "the gallery answered unexpectedly: \(detail)"
        }
    }
}

/// `scripts/gallery.py` running as a real HTTP server in a fresh temporary folder.
/// Its JSON endpoints are read with `RawHTTP`, independent of the uploader under test.
public final class GalleryProcess {
    public let process: Subprocess
    public let directory: URL
    public let host: String
    public let port: Int
    /// `http://HOST:PORT`, no trailing slash.
    public let baseURL: String

    public var photosDirectory: URL { directory.appendingPathComponent("photos", isDirectory: true) }
    public var uploadURL: String { baseURL + "/upload" }

    /// Starts the gallery with extra command-line `arguments` (fault flags) and waits up to
    /// `startTimeout` for its "listening" line.
    public init(arguments: [String] = [], startTimeout: TimeInterval = 30) throws {
        guard let python = Subprocess.which("python3") else { throw GalleryError.pythonMissing }
        directory = try TestPaths.makeTemporaryDirectory("gallery")
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/gallery.py").path
        // -S: the gallery needs only the standard library, and site-packages' start-up hooks were
        // a third of its start (hundreds of galleries a run).
        process = try Subprocess(python, ["-S", "-u", script, "--dir", directory.path, "--host", "127.0.0.1", "--port", "0"] + arguments)
        let line = process.line(after: "gallery listening on http://", timeout: startTimeout)
        guard let address = line, let colon = address.lastIndex(of: ":"),
            let port = Int(address[address.index(after: colon)...])
        else {
            let running = process.isRunning
            process.stop(timeout: 5)
            throw GalleryError.didNotStart(
                (running ? "no listening line within \(Int(startTimeout)) s" : "exited with status \(process.process.terminationStatus)")
                    + "; stdout: \(process.stdout); stderr: \(process.stderr)")
        }
        host = String(address[..<colon])
        self.port = port
        baseURL = "http://\(address)"
    }

    deinit {
        stop()
    }

    /// Stops the server; the photos folder stays until the caller removes `directory`.
    public func stop() {
        if process.isRunning { process.stop(timeout: 10) }
    }

    public func photos() throws -> [GalleryPhoto] {
        try getJSON("/api/photos")
    }

    public func requests() throws -> [GalleryRequest] {
        try getJSON("/api/requests")
    }

    /// Requests to the upload endpoint only (`/upload` and below).
    public func uploadRequests() throws -> [GalleryRequest] {
        try requests().filter { $0.path == "/upload" || $0.path.hasPrefix("/upload/") || $0.path.hasPrefix("/upload?") }
    }

    /// The upload requests once none is still being answered: the gallery logs a request
    /// "pending" until its answer is written, which can be after the client read the answer.
    public func settledUploadRequests(timeout: Double = 10) throws -> [GalleryRequest] {
        _ = Subprocess.waitUntil(timeout: timeout) { ((try? uploadRequests()) ?? []).allSatisfy { $0.status != "pending" } }
        return try uploadRequests()
    }

    /// The session manifests POSTed to `/manifests`, as JSON objects.
    public func manifests() throws -> [[String: Any]] {
        let response = try RawHTTP.get(host: host, port: port, path: "/api/manifests")
        guard response.status == 200, let list = try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]] else {
            throw GalleryError.badAnswer("GET /api/manifests: \(response.status)")
        }
        return list
    }

    /// Where a config's `manifestUrl` points to have manifests kept.
    public var manifestURL: String { baseURL + "/manifests" }

    public func setFaults(_ faults: GalleryFaults) throws {
        let body = try JSONEncoder().encode(faults)
        let response = try RawHTTP.send(
            host: host, port: port, method: "POST", path: "/api/faults",
            headers: ["Content-Type": "application/json"], body: body)
        guard response.status == 200 else {
            throw GalleryError.badAnswer("POST /api/faults: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    private func getJSON<T: Decodable>(_ path: String) throws -> T {
        let response = try RawHTTP.get(host: host, port: port, path: path)
        guard response.status == 200 else {
            throw GalleryError.badAnswer("GET \(path): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw GalleryError.badAnswer("GET \(path): \(error); body: \(String(decoding: response.body.prefix(500), as: UTF8.self))")
        }
    }
}
