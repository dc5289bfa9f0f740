import Foundation
import XCTest

@testable import GPhoto2

final class GPhoto2OwnerThreadTests: XCTestCase {
    func testEveryJobRunsOnTheOneOwnerThreadAndHandsItsValueBack() throws {
        let owner = GPhoto2OwnerThread(name: "test owner")
        defer { owner.finish() }
        let threads = try (0..<5).map { _ in try owner.perform { () throws(GPhoto2Error) -> pthread_t in pthread_self() } }
        XCTAssertTrue(threads.allSatisfy { pthread_equal($0, threads[0]) != 0 }, "every job on one thread")
        XCTAssertEqual(pthread_equal(threads[0], pthread_self()), 0, "not on the caller's thread")
        XCTAssertEqual(try owner.perform { () throws(GPhoto2Error) -> Int in 6 * 7 }, 42)
    }

    func testAJobsErrorReachesTheCaller() {
        let owner = GPhoto2OwnerThread(name: "test owner")
        defer { owner.finish() }
        XCTAssertThrowsError(
            try owner.perform { () throws(GPhoto2Error) in
                throw GPhoto2Error(code: GPhoto2Result.cameraBusy, operation: "fire the camera")
            }
        ) { error in
            XCTAssertEqual((error as? GPhoto2Error)?.kind, .busy)
        }
    }

    func testAJobAfterTheThreadFinishedFailsInsteadOfWaitingForever() {
        let owner = GPhoto2OwnerThread(name: "test owner")
        owner.finish()
        XCTAssertThrowsError(try owner.perform { () throws(GPhoto2Error) in })
    }
}
