import Foundation
import RunEvents
import TestSupport
import Testing

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
        let server = try StatusServer.start(
            StatusOptions(
                address: StatusAddress(host: "127.0.0.1", family: .ipv4, port: 0),
                token: token), bus: bus)
        let run = SampleRun(start: Date() - 9)
        for event in run.events(photoPaths: [photo.path, folder.appendingPathComponent("gone.jpg").path, photo.path]) {
            bus.publish(event)
        }
        server.waitForThumbnails()
        return (server, bus)
    }

    @Test func theRenderedPageShowsTheCameraTheBatteryAndTheCounts() throws {
        let (server, _) = try Self.serve()
        defer { server.stop() }
        let result = try HeadlessChromium.dumpDOM("http://127.0.0.1:\(server.address.port)/?token=\(Self.token)")
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
        #expect(dom.contains("not in this run"))
        #expect(dom.contains("4 waiting"))
        #expect(dom.contains("relay run --config archive sends them"))
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
        let shot = URL(fileURLWithPath: "/tmp/relay-status-shots/status-page.png")
        let result = try HeadlessChromium.screenshot("http://127.0.0.1:\(server.address.port)/?token=\(Self.token)", to: shot)
        #expect(result.status == 0, "\(result.stderr)")
        let png = try Data(contentsOf: shot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        print("status page screenshot: \(shot.path)")
    }
}
