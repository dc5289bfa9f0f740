import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 26: a `--json` reader that stops reading holds up no upload, and Ctrl-C still ends relay
/// within the grace; a reader that goes away ends the run with a clear message.
final class SlowJSONReaderTests: XCTestCase {
    /// `relay run --json` with stdout on a pipe nobody reads, holding `pipeSize` bytes when given
    /// (Linux's default is 64 KiB).
    private func startRun(_ harness: RelayHarness, _ extra: [String], pipeSize: Int32? = nil) throws -> (Process, Pipe, URL) {
        let process = Process()
        process.executableURL = TestPaths.relayExecutable
        process.arguments = ["run", "--folder", harness.dropFolder.path, "--settle", "0.2", "--json"] + extra
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in harness.environment { environment[key] = value }
        process.environment = environment
        let pipe = Pipe()
        if let pipeSize {
            // F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7), which Glibc's module does not export.
            XCTAssertEqual(fcntl(pipe.fileHandleForWriting.fileDescriptor, 1031, pipeSize), pipeSize, "the pipe holds \(pipeSize) bytes")
        }
        let stderr = harness.root.appendingPathComponent("relay.stderr")
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        process.standardOutput = pipe
        process.standardError = try FileHandle(forWritingTo: stderr)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, pipe, stderr)
    }

    private func waitForExit(_ process: Process, timeout: TimeInterval) -> Bool {
        Subprocess.waitUntil(timeout: timeout) { !process.isRunning }
    }

    func testAReaderThatStopsReadingHoldsUpNoUploadAndCtrlCStillEndsRelay() throws {
        let gallery = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        // A 16 KiB pipe, which the events of some 20 photos fill (about 900 bytes each): most of
        // the 50 uploads happen while the writer is blocked. Linux's 64 KiB took some 70 photos,
        // and 120 were dropped, at 50 ms an upload with one worker.
        let (relay, pipe, stderr) = try startRun(harness, ["--workers", "1", "--grace", "5"], pipeSize: 16_384)
        defer { if relay.isRunning { kill(relay.processIdentifier, SIGKILL) } }
        let photos = try harness.dropPhotos(50)
        let delivered = Subprocess.waitUntil(timeout: 120) { ((try? gallery.photos().count) ?? 0) == photos.count || !relay.isRunning }
        let log = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        XCTAssertTrue(delivered, "every photo reached the gallery while nobody read the events: \(log.suffix(2000))")

        // Proof that the reader held the event writer up: the pipe is full (it holds 16 KiB; an
        // event line is some 350 bytes).
        var unread: Int32 = 0
        XCTAssertEqual(ioctl(pipe.fileHandleForReading.fileDescriptor, UInt(FIONREAD), &unread), 0)
        XCTAssertGreaterThan(unread, 15_000, "the pipe filled up, so the --json writer was blocked")

        let stoppedAt = Date()
        kill(relay.processIdentifier, SIGINT)
        XCTAssertTrue(waitForExit(relay, timeout: 15), "relay ended while the reader still did not read")
        XCTAssertLessThan(Date().timeIntervalSince(stoppedAt), 11, "within the 5 s grace and the short flush of the outputs")
        XCTAssertEqual(relay.terminationStatus, 0)
        XCTAssertEqual(try harness.status().queued.count, 0)
    }

    func testAReaderThatGoesAwayEndsTheRunWithAMessageAndTheSpoolKept() throws {
        let gallery = try GalleryProcess()
        try gallery.setFaults(GalleryFaults(failRate: 1, failStatus: 503))
        let harness = try RelayHarness(sendingTo: gallery, note: "gallery")
        try harness.dropPhotos(2)
        let (relay, pipe, stderr) = try startRun(harness, [])
        defer { if relay.isRunning { kill(relay.processIdentifier, SIGKILL) } }
        // Read until the first photo is in the spool, then go away.
        var seen = ""
        let reader = pipe.fileHandleForReading
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) {
                seen += String(decoding: reader.availableData, as: UTF8.self)
                return seen.contains("\"photo.spooled\"") || !relay.isRunning
            }, seen)
        try reader.close()
        XCTAssertTrue(waitForExit(relay, timeout: 30), "relay noticed that stdout was closed")
        let log = try String(contentsOf: stderr, encoding: .utf8)
        XCTAssertEqual(relay.terminationStatus, 1, log)
        XCTAssertTrue(log.contains("stdout was closed while relay wrote --json events"), log)
        XCTAssertEqual(try harness.status().queued.count, 2, "both photos wait in the spool for the next run")
    }
}
