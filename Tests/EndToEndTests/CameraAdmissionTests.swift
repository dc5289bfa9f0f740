import Foundation
import TestSupport
import XCTest

/// Cameras that do not let relay in: a body that knows only the client id it was paired with
/// (the simulator with `--require-guid`, as a Nikon Z answers), and a Fujifilm, which relay does
/// not speak (`scripts/fuji_listener.py`). The real relay executable against real sockets.
final class CameraAdmissionTests: XCTestCase {
    private let pairedGUID = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

    func testABodyThatIsNotPairedIsReportedAsSuchUntilRelayPairSetsItsGUID() throws {
        let camera = try CameraRun(profile: "nikon-z", ["--require-guid", pairedGUID, "--initial-photos", "0"], note: "admission e2e")
        let (harness, sim) = (camera.harness, camera.sim)
        let run = try camera.start()
        defer { run.stop() }
        let notPaired = "not paired: run relay pair --camera \(sim.cameraURL)"
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { run.stderr.contains(notPaired) || !run.isRunning }, run.stderr)
        XCTAssertTrue(run.isRunning, "a body that is not paired is retried, not given up on:\n\(run.stderr)")
        XCTAssertTrue(
            run.stderr.contains("Remote control (EOS Utility)") && run.stderr.contains("PC Remote"),
            "the message carries the steps:\n\(run.stderr)")
        XCTAssertFalse(sim.log.contains("session 1"), "no session without the paired id")

        let wrong = try harness.relay("pair", "--camera", sim.cameraURL, "--wait", "3")
        XCTAssertEqual(wrong.status, 5, wrong.stdout + wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("not paired: the camera at \(sim.cameraURL) still refuses relay"), wrong.stderr)
        XCTAssertTrue(wrong.stdout.contains("Connect to computer"), "relay pair shows the steps first:\n\(wrong.stdout)")

        let paired = try harness.relay("pair", "--camera", sim.cameraURL, "--guid", pairedGUID.uppercased(), "--name", "EOS Utility PC")
        XCTAssertEqual(paired.status, 0, paired.stdout + paired.stderr)
        XCTAssertTrue(paired.stdout.contains("paired with Z 8"), paired.stdout)

        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { run.stderr.contains("connected to Z 8") },
            "relay run connects once paired:\n\(sim.log.suffix(3000))\n\(run.stderr.suffix(3000))")
        XCTAssertTrue(
            sim.log.split(separator: "\n").contains { $0.contains("session 2 with") && $0.contains("(EOS Utility PC)") },
            "relay run's session, after relay pair's, announces the paired name:\n\(sim.log.suffix(3000))")
        sim.shootByStdin(2)
        try camera.waitForPhotos(2, relay: run, timeout: 60)
        XCTAssertEqual(run.stop(signal: SIGINT), 0, run.stderr)
    }

    func testAFujifilmIsRefusedInOneLineWithExitFive() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "admission e2e")
        let fuji = try FujiListener()
        defer { fuji.process.stop() }
        let run = try harness.startCameraRun("ptpip://127.0.0.1:\(fuji.port)")
        let status = run.wait(timeout: 60)
        if status == nil { run.stop(signal: SIGKILL) }
        XCTAssertEqual(status, 5, run.stderr)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 1, "the refusal is the run's one line, without the banner and the stop lines:\n\(run.stderr)")
        let last = lines.last ?? ""
        XCTAssertEqual(
            last,
            "relay: the camera at 127.0.0.1:\(fuji.port) is a Fujifilm, which relay does not support over Wi-Fi: "
                + "let the camera upload to relay by FTP instead (relay run --ftp 2121 --ftp-user NAME; relay ftp-setup --ftp-user NAME "
                + "says what to type into the camera)", run.stderr)
        XCTAssertFalse(run.stderr.contains("InitEventAck"), "no wait for an event channel Fuji never opens:\n\(run.stderr)")
        XCTAssertTrue(fuji.process.stderr.contains("packet type 1"), "relay's init request reached the listener: \(fuji.process.stderr)")
    }

    func testAFailedCaptureRunExitsWithFailure() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "admission e2e")
        let sim = try CameraSimProcess(profile: "canon-eos", arguments: ["--capture-answers", "BBB"])
        defer { sim.stop() }
        let run = try harness.startCapture(sim.cameraURL, ["--once"])
        let status = run.wait(timeout: 90)
        if status == nil { run.stop(signal: SIGKILL) }
        XCTAssertEqual(status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("0 of 1 captured, 0 uploaded, 1 failed"), run.stdout)
        XCTAssertTrue(run.stderr.contains("relay: no shot was captured (last: the camera answered DeviceBusy 3 times"), run.stderr)
    }
}

/// `scripts/fuji_listener.py` on a free loopback port.
private struct FujiListener {
    let process: Subprocess
    let port: Int

    init() throws {
        let python = try XCTUnwrap(Subprocess.which("python3"), "python3 is needed for the Fujifilm-like listener")
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/fuji_listener.py").path
        process = try Subprocess(python, ["-u", script, "--host", "127.0.0.1", "--port", "0"])
        let child = process
        var found: Int?
        _ = Subprocess.waitUntil(timeout: 30) {
            found = child.stdout.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return found != nil || !child.isRunning
        }
        port = try XCTUnwrap(found, "the listener did not start: \(child.stderr)")
    }
}
