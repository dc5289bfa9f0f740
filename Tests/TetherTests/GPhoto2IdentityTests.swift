import GPhoto2
import XCTest

@testable import Tether

/// A file libgphoto2 lists with its time a second off in another session is still the file
/// relay took (the chaos matrix took one photo twice after a restart before this).
final class GPhoto2IdentityTests: XCTestCase {
    func testAFileSeenWithItsTimeASecondOffIsTheSameFile() {
        let path = GPhoto2FilePath(folder: "/store_00010001/DCIM/100MSDCF", name: "DSC00001.JPG")
        let first = GPhoto2FileInfo(size: 149_996, modified: 1_795_616_691, mimeType: "image/jpeg")
        let again = GPhoto2FileInfo(size: 149_996, modified: 1_795_616_690, mimeType: "image/jpeg")
        XCTAssertTrue(GPhoto2Session.identityKeys(path, again).contains(GPhoto2Session.identityKey(path, first)))
        let otherSize = GPhoto2FileInfo(size: 150_000, modified: 1_795_616_691, mimeType: "image/jpeg")
        XCTAssertFalse(GPhoto2Session.identityKeys(path, otherSize).contains(GPhoto2Session.identityKey(path, first)))
        let muchLater = GPhoto2FileInfo(size: 149_996, modified: 1_795_616_700, mimeType: "image/jpeg")
        XCTAssertFalse(
            GPhoto2Session.identityKeys(path, muchLater).contains(GPhoto2Session.identityKey(path, first)),
            "the same name and size shot later (after a format) is a new photo")
    }
}
