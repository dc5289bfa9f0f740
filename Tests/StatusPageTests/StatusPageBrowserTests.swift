import Foundation
import RunEvents
import Testing
import TestSupport
@testable import StatusPage

/// The page in a real browser (Debian's headless Chromium), served by the real server with a
/// token, after a run's events: what a phone would show once the page's script has polled.
@Suite(.serialized) struct StatusPageBrowserTests {
    static let token = "t0ken"

    /// A server holding the sample run, stamped so that it ends now, with real photos behind the
    /// first and third uploads (the second's spool file is gone: a placeholder).
    static func serve() throws -> (StatusServer, RunEventBus) {
        let folder = try TestPaths.makeTemporaryDirectory("status-page")
        let photo = folder.appendingPathComponent("photo.jpg")
        try CameraJPEG.write(to: photo, CameraJPEG.Options(width: 1200, height: 800, seed: 7))
        let bus = RunEventBus()
        let server = try StatusServer.start(StatusOptions(address: StatusAddress(host: "127.0.0.1", family: .ipv4, port: 0),
                                                          token: token), bus: bus)
        let run = SampleRun(start: Date() - 9)
        for event in run.events(photoPaths: [photo.path, folder.appendingPathComponent("gone.jpg").path, photo.path]) {
            bus.publish(event)
        }
        server.waitForThumbnails()
        return (server, bus)
    }

    static func chromium(_ arguments: [String], url: String) throws -> (status: Int32, stdout: String, stderr: String) {
        guard let chromium = Subprocess.which("chromium") else {
            throw BrowserMissing(description: "chromium is not installed: run scripts/install-deps.sh")
        }
        let profile = try TestPaths.makeTemporaryDirectory("chromium-profile")
        return try Subprocess.run(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                             "--user-data-dir=\(profile.path)", "--virtual-time-budget=5000"] + arguments + [url],
                                  timeout: 120)
    }

    struct BrowserMissing: Error, CustomStringConvertible {
        var description: String
    }

    @Test func theRenderedPageShowsTheCameraTheBatteryAndTheCounts() throws {
        let (server, _) = try Self.serve()
        defer { server.stop() }
        let result = try Self.chromium(["--dump-dom"], url: "http://127.0.0.1:\(server.address.port)/?token=\(Self.token)")
        #expect(result.status == 0, "\(result.stderr)")
        let dom = result.stdout
        #expect(dom.contains("Canon EOS R50"))
        #expect(dom.contains("battery 80 %"))
        #expect(dom.contains("card 812 shots, 12.5 GB free"))
        #expect(dom.contains(#"<b id="taken">3</b>"#))
        #expect(dom.contains(#"<b id="delivered">3</b>"#))
        #expect(dom.contains("last shot IMG_1003.JPG"))
        #expect(dom.contains("unreachable"))
        #expect(dom.contains("2 waiting"))
        #expect(dom.contains("connection refused"))
        // The page polled with its token (else 401 and the lost-connection banner) and shows
        // the thumbnails it has, with the token too, and a placeholder for the missing one.
        #expect(!dom.contains(#"<body class="lost""#))
        #expect(dom.contains("updated "))
        #expect(dom.contains(#"src="thumb/p1.jpg?token=t0ken""#))
        #expect(dom.contains(#"class="placeholder""#))
    }

    @Test func aScreenshotForAPersonToLookAt() throws {
        let (server, _) = try Self.serve()
        defer { server.stop() }
        let folder = URL(fileURLWithPath: "/tmp/relay-status-shots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let shot = folder.appendingPathComponent("status-page.png")
        try? FileManager.default.removeItem(at: shot)
        let result = try Self.chromium(["--screenshot=\(shot.path)", "--window-size=412,915", "--hide-scrollbars"],
                                       url: "http://127.0.0.1:\(server.address.port)/?token=\(Self.token)")
        #expect(result.status == 0, "\(result.stderr)")
        let png = try Data(contentsOf: shot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        print("status page screenshot: \(shot.path)")
    }
}
