import Foundation
import RelayCore
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A signal sent the moment `SignalWatch.watch` returns reaches its handler: relay's run did not
/// stop on a SIGINT that came right after its start while libdispatch's signal source was still
/// registering (the chaos matrix saw it twice in 24 cells).
final class SignalWatchTests: XCTestCase {
    func testASignalRightAfterWatchingIsNotLost() {
        let seen = LockedBox<[Int32]>([])
        let arrived = expectation(description: "both signals handled")
        arrived.expectedFulfillmentCount = 2
        SignalWatch.watch([SIGUSR2, SIGWINCH]) { number in
            seen.withLockedValue { $0.append(number) }
            arrived.fulfill()
        }
        kill(getpid(), SIGUSR2)
        kill(getpid(), SIGWINCH)
        wait(for: [arrived], timeout: 10)
        XCTAssertEqual(Set(seen.current), [SIGUSR2, SIGWINCH])
    }
}
