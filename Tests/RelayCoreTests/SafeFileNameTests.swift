import RelayCore
import XCTest

final class SafeFileNameTests: XCTestCase {
    func testCameraNamesStayAsTheyAre() {
        XCTAssertEqual(SafeFileName.make("IMG_0001.JPG"), "IMG_0001.JPG")
        XCTAssertEqual(SafeFileName.make("DSC-4411.jpeg"), "DSC-4411.jpeg")
    }

    func testPathsQuotesAndSpacesAreNeutralised() {
        XCTAssertEqual(SafeFileName.make("../../etc/passwd"), "passwd")
        XCTAssertEqual(SafeFileName.make("C:\\DCIM\\IMG_1.JPG"), "IMG_1.JPG")
        XCTAssertEqual(SafeFileName.make("my \"best\" shot (1).jpg"), "my__best__shot__1_.jpg")
        XCTAssertEqual(SafeFileName.make("a\r\nb.jpg"), "a__b.jpg")
        XCTAssertEqual(SafeFileName.make(".hidden.jpg"), "hidden.jpg")
        XCTAssertEqual(SafeFileName.make("Fête.jpg"), "F_te.jpg")
    }

    func testEmptyOrMeaninglessNamesFallBack() {
        XCTAssertEqual(SafeFileName.make(""), "photo.jpg")
        XCTAssertEqual(SafeFileName.make(".."), "photo.jpg")
        XCTAssertEqual(SafeFileName.make("/"), "photo.jpg")
        XCTAssertEqual(SafeFileName.make("ééé"), "photo.jpg")
    }

    func testLongNamesAreCutButKeepTheExtension() {
        let made = SafeFileName.make(String(repeating: "x", count: 500) + ".jpg")
        XCTAssertEqual(made.count, SafeFileName.maximumLength)
        XCTAssert(made.hasSuffix("x.jpg"))
    }
}
