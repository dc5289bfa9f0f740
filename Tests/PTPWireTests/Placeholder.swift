import XCTest

final class PTPWireTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
