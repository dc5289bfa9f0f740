import XCTest

final class CameraSimTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
