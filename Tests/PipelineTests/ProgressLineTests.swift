import Pipeline
import XCTest

final class ProgressLineTests: XCTestCase {
    func testProgressLine() {
        var snapshot = RunStatistics.Snapshot()
        snapshot.queued = 3
        snapshot.uploading = 2
        snapshot.delivered = 40
        snapshot.failed = 1
        snapshot.bytesPerSecond = 2_500_000
        snapshot.lastShutterToGallery = 1.84
        XCTAssertEqual(ProgressLine.format(snapshot),
                       "queued 3 · uploading 2 · done 40 · failed 1 · 2.5 MB/s · last shutter→gallery 1.84s")
        snapshot.spoolFull = true
        XCTAssertTrue(ProgressLine.format(snapshot).hasSuffix("spool full, waiting"))
        snapshot.sourceStatus = ["Canon EOS R50 connected", "camera: reconnecting in 2s (attempt 3): connection refused"]
        XCTAssertTrue(ProgressLine.format(snapshot).hasSuffix(
            "spool full, waiting · Canon EOS R50 connected · camera: reconnecting in 2s (attempt 3): connection refused"))
    }
}
