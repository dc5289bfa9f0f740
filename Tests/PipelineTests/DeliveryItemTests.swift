import Foundation
import Spool
import XCTest

@testable import Pipeline

/// What a destination's path template gets for `{camera}`, per source.
final class DeliveryItemTests: XCTestCase {
    private func camera(of source: String) -> String {
        let entry = SpoolEntry(
            id: "id", sequence: 1, source: source, cameraFileName: "DSC_0001.JPG", uploadName: "DSC_0001.JPG",
            bytes: 1, capturedAt: Date(), spooledAt: Date(), idempotencyKey: "id")
        return DeliveryWorker.item(entry, filePath: "/dev/null", session: nil).template.camera
    }

    func testEachCameraGetsAFolderOfItsOwn() {
        XCTAssertEqual(camera(of: "camera:SIM0CANON0001"), "SIM0CANON0001", "a tethered camera: its serial")
        XCTAssertEqual(camera(of: "ftp:z9-left"), "z9-left", "a camera uploading over FTP: the account it logs in as")
        XCTAssertEqual(camera(of: "folder:/srv/drop/booth"), "booth", "a hot folder: its name")
    }
}
