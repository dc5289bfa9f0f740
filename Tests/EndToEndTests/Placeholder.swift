import XCTest

final class EndToEndTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
