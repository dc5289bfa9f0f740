import Foundation
import Spool
import XCTest

@testable import Pipeline

/// What a run says about photos in the spool that are not its own to send.
final class SpoolNoticesTests: XCTestCase {
    func testAFullSpoolHeldByAnotherDestinationsPhotosSaysHowToFreeIt() throws {
        let backup = WaitingDestination(id: "ABCDEF12-0000-0000-0000-000000000000", label: "backup", photos: ["A.JPG", "B.JPG"])
        let notice = try XCTUnwrap(SpoolNotices.whenFull(waiting: [backup]))
        XCTAssertTrue(notice.contains("(2 for 'backup')"), notice)
        XCTAssertTrue(notice.contains("--config abcdef12"), notice)
        XCTAssertTrue(notice.contains("relay drop --destination abcdef12"), notice)
        XCTAssertNil(SpoolNotices.whenFull(waiting: []), "a spool full of this run's own photos empties as it delivers")
    }
}
