import XCTest

final class RelayCoreTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
