import Foundation
import RelayCore
import Spool
import XCTest

/// A sidecar written by a relay before issue 41 (no protection, no transfer request) reads as
/// a photo with no marks but its rating; the marks round-trip, and an unmarked photo's sidecar
/// carries none of the new fields, so an older relay reads it as before.
final class SidecarCompatibilityTests: XCTestCase {
    func testAnOlderSidecarReadsAndTheMarksRoundTrip() throws {
        let older = """
            {"id":"p1","sequence":1,"source":"camera:SIM","cameraFileName":"IMG_0001.JPG","uploadName":"IMG_0001.JPG",
            "bytes":1000,"capturedAt":0,"spooledAt":0,"attempts":0,"idempotencyKey":"p1","isTimerCapture":false,
            "state":"queued","rating":3}
            """
        var entry = try JSONDecoder().decode(SpoolEntry.self, from: Data(older.utf8))
        XCTAssertEqual(entry.selection, PhotoSelection(rating: 3))
        entry.selection = PhotoSelection(rating: 3, protected: true, requested: true)
        let again = try JSONDecoder().decode(SpoolEntry.self, from: JSONEncoder().encode(entry))
        XCTAssertEqual(again.selection, entry.selection)
        entry.selection = PhotoSelection()
        let plain = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        XCTAssertFalse(plain.contains("protected") || plain.contains("transferRequested") || plain.contains("rating"), plain)
    }
}
