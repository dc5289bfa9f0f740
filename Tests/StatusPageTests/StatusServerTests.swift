import Foundation
import RunEvents
import SocketIO
import TestSupport
import Testing

@testable import StatusPage

#if canImport(Glibc)
    import Glibc
#endif

/// The real server on loopback, asked by a plain HTTP client, fed by a bus the test publishes on.
@Suite struct StatusServerTests {
    static func start(token: String? = nil, host: String = "127.0.0.1") throws -> (StatusServer, RunEventBus) {
        let bus = RunEventBus()
        let server = try StatusServer.start(
            StatusOptions(address: StatusAddress(host: host, family: .ipv4, port: 0), token: token),
            bus: bus)
        return (server, bus)
    }

    static func get(_ server: StatusServer, _ path: String, headers: [String: String] = [:]) throws -> RawHTTP.Response {
        try RawHTTP.send(host: "127.0.0.1", port: Int(server.address.port), method: "GET", path: path, headers: headers, body: Data())
    }

    @Test func metricsParseWithPrometheusOwnParser() throws {
        let (server, bus) = try Self.start()
        defer { server.stop() }
        for event in SampleRun.events() { bus.publish(event) }
        let response = try Self.get(server, "/metrics")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let samples = try PrometheusParser.samples(String(decoding: response.body, as: UTF8.self))
        #expect(samples["relay_photos_taken_total", ["source": SampleRun.camera]] == 3)
        #expect(samples["relay_photos_delivered_total", ["destination": "gallery"]] == 3)
        #expect(samples["relay_photos_failed_total", ["destination": "backup \"b\""]] == 1)
        #expect(samples["relay_bytes_sent_total", ["destination": "gallery"]] == 3_000_000)
        #expect(samples["relay_queue_depth", ["destination": "backup \"b\"", "state": "queued"]] == 2)
        #expect(samples["relay_camera_connected", ["source": SampleRun.camera, "model": "Canon EOS R50"]] == 1)
        #expect(samples["relay_camera_battery_percent", ["source": SampleRun.camera]] == 80)
        #expect(samples["relay_destination_reachable", ["destination": "backup \"b\""]] == 0)
        #expect(samples["relay_upload_seconds_bucket", ["le": "0.5"]] == 3)
        #expect(samples["relay_upload_seconds_bucket", ["le": "+Inf"]] == 3)
        #expect(samples["relay_upload_seconds_count", [:]] == 3)
        #expect(samples.types["relay_upload_seconds"] == "histogram")
        #expect(samples.types["relay_photos_delivered"] == "counter")
        #expect(samples.types["relay_queue_depth"] == "gauge")

        bus.publish(SampleRun.delivered(4, at: 9)[0])
        bus.publish(SampleRun.delivered(4, at: 9)[1])
        let after = try PrometheusParser.samples(String(decoding: try Self.get(server, "/metrics").body, as: UTF8.self))
        #expect(after["relay_photos_delivered_total", ["destination": "gallery"]] == 4)
    }

    @Test func aTokenGuardsAllButHealthz() throws {
        let (server, bus) = try Self.start(token: "pass word/1")
        defer { server.stop() }
        bus.publish(SampleRun.events()[0])
        #expect(try Self.get(server, "/").status == 401)
        #expect(try Self.get(server, "/status.json?token=wrong").status == 401)
        #expect(try Self.get(server, "/status.json?token=pass%20word%2F1").status == 200)
        #expect(try Self.get(server, "/metrics", headers: ["Authorization": "Bearer pass word/1"]).status == 200)
        let health = try Self.get(server, "/healthz")
        #expect(health.status == 200)
        #expect(String(decoding: health.body, as: UTF8.self).hasPrefix("ok"))
    }

    @Test func healthzIs503BeforeTheStartAndWhileStopping() throws {
        let (server, bus) = try Self.start()
        defer { server.stop() }
        #expect(try Self.get(server, "/healthz").status == 503)
        bus.publish(SampleRun.events()[0])
        #expect(try Self.get(server, "/healthz").status == 200)
        bus.publish(.run(.stopping(graceSeconds: 15)))
        let stopping = try Self.get(server, "/healthz")
        #expect(stopping.status == 503)
        #expect(String(decoding: stopping.body, as: UTF8.self).hasPrefix("stopping"))
    }

    @Test func onlyGetAndHead() throws {
        let (server, _) = try Self.start()
        defer { server.stop() }
        let posted = try RawHTTP.send(
            host: "127.0.0.1", port: Int(server.address.port), method: "POST", path: "/status.json",
            body: Data("x".utf8))
        #expect(posted.status == 405)
        let head = try RawHTTP.exchange(
            host: "127.0.0.1", port: Int(server.address.port),
            request: Data("HEAD /metrics HTTP/1.0\r\n\r\n".utf8))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(try Self.get(server, "/spool/queue").status == 404)
    }

    @Test func aPortInUseIsNamed() throws {
        let (server, _) = try Self.start()
        defer { server.stop() }
        let taken = StatusOptions(address: StatusAddress(host: "127.0.0.1", family: .ipv4, port: server.address.port), token: nil)
        #expect(throws: StatusServerError.portInUse(taken.address)) { try StatusServer.start(taken, bus: RunEventBus()) }
        #expect(StatusServerError.portInUse(taken.address).description.contains("port \(server.address.port) is already in use"))
    }

    @Test func stopClosesThePort() throws {
        let (server, _) = try Self.start()
        let port = Int(server.address.port)
        #expect(try Self.get(server, "/healthz").status == 503)
        server.stop()
        server.stop()
        #expect(throws: RawHTTP.Failure.self) { try RawHTTP.get(host: "127.0.0.1", port: port, path: "/healthz") }
    }

    @Test func servesOnIPv6() throws {
        let server = try StatusServer.start(try StatusOptions(argument: "[::1]:0", environment: [:]), bus: RunEventBus())
        defer { server.stop() }
        let connection = try TCPConnection.connect(host: "::1", port: server.address.port, timeout: 10)
        defer { connection.close() }
        try connection.write(Array("GET /healthz HTTP/1.0\r\n\r\n".utf8), timeout: 10)
        var answer: [UInt8] = []
        while true {
            let bytes = try connection.readSome(maxCount: 4096, timeout: 10)
            if bytes.isEmpty { break }
            answer += bytes
        }
        let statusLine = String(decoding: answer, as: UTF8.self).prefix { $0 != "\r" }
        #expect(statusLine.split(separator: " ").dropFirst().first == "503", "\(statusLine)")
    }

    @Test(.enabled(if: NetworkAddresses.firstNonLoopbackIPv4 != nil, "the machine has no non-loopback IPv4 address"))
    func boundToLoopbackByDefault() throws {
        let options = try StatusOptions(argument: "0", environment: [:])
        let server = try StatusServer.start(options, bus: RunEventBus())
        defer { server.stop() }
        let outside = try #require(NetworkAddresses.firstNonLoopbackIPv4)
        #expect(try RawHTTP.get(host: "127.0.0.1", port: Int(server.address.port), path: "/healthz").status == 503)
        #expect(throws: RawHTTP.Failure.self) { try RawHTTP.get(host: outside, port: Int(server.address.port), path: "/healthz") }
    }

    @Test func thumbnailsOfSpooledPhotos() throws {
        let folder = try TestPaths.makeTemporaryDirectory("status-thumbs")
        let big = folder.appendingPathComponent("big.jpg")
        try CameraJPEG.write(to: big, CameraJPEG.Options(width: 1200, height: 800))
        let (server, bus) = try Self.start()
        defer { server.stop() }
        let gone = folder.appendingPathComponent("delivered-and-removed.jpg").path
        let removedLater = folder.appendingPathComponent("removed-after-spooling.jpg")
        try FileManager.default.copyItem(at: big, to: removedLater)
        for event in SampleRun.events(photoPaths: [big.path, gone, removedLater.path]) {
            bus.publish(event)
            if case .source(_, .spooled(let photo)) = event.event, photo.path == removedLater.path {
                try FileManager.default.removeItem(at: removedLater)
            }
        }
        server.waitForThumbnails()
        let thumbnail = try Self.get(server, "/thumb/p1.jpg")
        #expect(thumbnail.status == 200)
        #expect(thumbnail.headers["content-type"] == "image/jpeg")
        #expect(thumbnail.body.starts(with: [0xFF, 0xD8]))
        #expect(thumbnail.body.count < 20_000)
        let (width, height, _, _) = try CameraJPEG.probe(
            folder.appendingPathComponent("thumb.jpg", isDirectory: false)
                .writing(thumbnail.body))
        #expect(max(width, height) == ThumbnailStore.maxEdge)
        #expect(try Self.get(server, "/thumb/p2.jpg").status == 404)
        let json = try #require(try JSONSerialization.jsonObject(with: try Self.get(server, "/status.json").body) as? [String: Any])
        let recent = try #require(json["recent"] as? [[String: Any]])
        #expect(recent.map { $0["thumbnail"] as? String } == ["/thumb/p3.jpg", nil, "/thumb/p1.jpg"])
    }

    @Test func theCamerasOwnPreviewServesWhenThePhotoHasOne() throws {
        let folder = try TestPaths.makeTemporaryDirectory("status-preview")
        let photo = folder.appendingPathComponent("photo.jpg")
        let preview = folder.appendingPathComponent("preview.jpg")
        try CameraJPEG.write(to: photo, CameraJPEG.Options(width: 1200, height: 800))
        let previewBytes = try CameraJPEG.write(to: preview, CameraJPEG.Options(width: 160, height: 120, seed: 5))
        let exiftool = try #require(Subprocess.which("exiftool"), "exiftool is missing: run scripts/install-deps.sh")
        let inserted = try Subprocess.run(exiftool, ["-q", "-overwrite_original", "-ThumbnailImage<=\(preview.path)", photo.path])
        try #require(inserted.status == 0, "\(inserted.stderr)")
        let (server, bus) = try Self.start()
        defer { server.stop() }
        for event in SampleRun.events(photoPaths: [photo.path, photo.path, photo.path]) { bus.publish(event) }
        server.waitForThumbnails()
        #expect(try Self.get(server, "/thumb/p1.jpg").body == previewBytes)
    }
}

extension URL {
    /// Writes `data` here and returns the URL.
    func writing(_ data: Data) throws -> URL {
        try data.write(to: self)
        return self
    }
}

/// The machine's own addresses, to show that a loopback-bound server does not answer on them.
enum NetworkAddresses {
    static let firstNonLoopbackIPv4: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var copy = ipv4
            inet_ntop(AF_INET, &copy, &text, socklen_t(text.count))
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !string.hasPrefix("127.") { return string }
        }
        return nil
    }()
}
