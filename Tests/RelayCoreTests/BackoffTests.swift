import RelayCore
import XCTest

final class BackoffTests: XCTestCase {
    func testCeilingDoublesUntilTheCap() {
        let backoff = Backoff(base: 0.5, cap: 60)
        XCTAssertEqual(backoff.ceiling(attempt: 0), 0.5)
        XCTAssertEqual(backoff.ceiling(attempt: 1), 1)
        XCTAssertEqual(backoff.ceiling(attempt: 2), 2)
        XCTAssertEqual(backoff.ceiling(attempt: 6), 32)
        XCTAssertEqual(backoff.ceiling(attempt: 7), 60)
        XCTAssertEqual(backoff.ceiling(attempt: 1_000_000), 60)
        XCTAssertEqual(backoff.ceiling(attempt: Int.max), 60)
        XCTAssertEqual(backoff.ceiling(attempt: -4), 0.5)
        XCTAssertEqual(Backoff(base: 0, cap: 60).ceiling(attempt: 3), 0)
    }

    func testDelaysStayWithinZeroAndTheCeiling() {
        let backoff = Backoff(base: 0.01, cap: 0.2)
        var random = SeededRandom(seed: 42)
        for attempt in 0..<40 {
            for _ in 0..<200 {
                let delay = backoff.delay(attempt: attempt, using: &random)
                XCTAssert(delay >= 0 && delay <= backoff.ceiling(attempt: attempt), "attempt \(attempt): \(delay)")
            }
        }
    }

    func testJitterIsSpreadOverTheWholeRange() {
        // Full jitter: uniform on [0, ceiling]. With a fixed seed the sample is fixed, so the
        // tolerances only have to hold for this one sample; they still fail for "always the
        // ceiling", "always half" or an exponent off by one.
        let backoff = Backoff(base: 1, cap: 100)
        var random = SeededRandom(seed: 7)
        let ceiling = backoff.ceiling(attempt: 3)
        var buckets = [Int](repeating: 0, count: 4)
        var sum = 0.0
        let samples = 20_000
        for _ in 0..<samples {
            let delay = backoff.delay(attempt: 3, using: &random)
            sum += delay
            buckets[min(3, Int(delay / ceiling * 4))] += 1
        }
        XCTAssertEqual(sum / Double(samples), ceiling / 2, accuracy: ceiling * 0.02)
        for count in buckets {
            XCTAssertEqual(Double(count) / Double(samples), 0.25, accuracy: 0.02, "\(buckets)")
        }
    }

    func testTheSameSeedGivesTheSameDelays() {
        let backoff = Backoff()
        var first = SeededRandom(seed: 99)
        var second = SeededRandom(seed: 99)
        let a = (0..<10).map { backoff.delay(attempt: $0, using: &first) }
        let b = (0..<10).map { backoff.delay(attempt: $0, using: &second) }
        XCTAssertEqual(a, b)
        XCTAssertEqual(Set(a).count, 10)
    }
}
