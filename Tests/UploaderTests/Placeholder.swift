import XCTest

final class UploaderTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
