import XCTest

final class SpoolTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
