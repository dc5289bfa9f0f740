import PTPWire
import XCTest

@testable import Capture

/// Issue 29: the bracketing plan from a list or a metered range, fitted to a body's speeds.
final class BracketPlanTests: XCTestCase {
    private func speeds(_ plan: BracketPlan, set: Int) -> [String] {
        plan.frames.filter { $0.set == set }.map(\.speed.description)
    }

    func testAListIsFiredInOrderAndRepeatedPerSet() throws {
        let plan = try BracketPlan.listed("1/1000,1/250,1/60,1/15", sets: 2)
        XCTAssertEqual(plan.frames.count, 8)
        XCTAssertEqual(plan.sets, 2)
        XCTAssertEqual(speeds(plan, set: 1), ["1/1000", "1/250", "1/60", "1/15"])
        XCTAssertEqual(speeds(plan, set: 2), ["1/1000", "1/250", "1/60", "1/15"])
        XCTAssertEqual(plan.frames.map(\.frame), [1, 2, 3, 4, 1, 2, 3, 4])
        XCTAssertThrowsError(try BracketPlan.listed("1/1000,fast")) { error in
            XCTAssertTrue("\(error)".contains("'fast' is not a shutter speed"), "\(error)")
        }
        XCTAssertThrowsError(try BracketPlan.listed("1/1000", sets: 0))
    }

    /// 1/1000 to 1/4 is 8 stops: 9 frames 1 stop apart reach it, so two sets of 5, the last
    /// frame one stop past the slow end; each speed on the body's third-stop marks.
    func testARangeIsCoveredBySetsOfFramesEVApart() throws {
        let plan = try BracketPlan.covering(range: "1/1000..1/4", frames: 5, ev: 1)
        XCTAssertEqual(speeds(plan, set: 1), ["1/1000", "1/500", "1/250", "1/125", "1/60"])
        XCTAssertEqual(speeds(plan, set: 2), ["1/30", "1/15", "1/8", "1/4", "0.5\""])
        XCTAssertEqual(try BracketPlan.covering(range: "1/4..1/1000", frames: 5, ev: 1), plan, "either order")

        let thirds = try BracketPlan.covering(range: "1/250..1/60", frames: 3, ev: BracketPlan.spacing("2/3"))
        XCTAssertEqual(speeds(thirds, set: 1), ["1/250", "1/160", "1/100"])
        XCTAssertEqual(speeds(thirds, set: 2), ["1/60", "1/40", "1/25"])
        let one = try BracketPlan.covering(range: "1/125..1/125", frames: 3, ev: 2, sets: 3)
        XCTAssertEqual(one.frames.count, 9, "one set, repeated")
        XCTAssertEqual(speeds(one, set: 3), ["1/125", "1/30", "1/8"])
    }

    func testSpacingAndRangeErrorsSayTheAcceptedForms() throws {
        XCTAssertEqual(try BracketPlan.spacing("0.7"), 2.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(try BracketPlan.spacing("0.3"), 1.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(try BracketPlan.spacing("1.5"), 1.5, accuracy: 1e-9)
        XCTAssertThrowsError(try BracketPlan.spacing("a lot"))
        XCTAssertThrowsError(try BracketPlan.spacing("0.1"))
        XCTAssertThrowsError(try BracketPlan.covering(range: "1/1000-1/4", frames: 5, ev: 1)) { error in
            XCTAssertTrue("\(error)".contains("FAST..SLOW"), "\(error)")
        }
        XCTAssertThrowsError(try BracketPlan.covering(range: "1/1000..1/4", frames: 1, ev: 1))
        XCTAssertThrowsError(try BracketPlan.covering(range: "1/8000..30", frames: 3, ev: 1.0 / 3, sets: 100)) { error in
            XCTAssertTrue("\(error)".contains("at most 1000"), "\(error)")
        }
    }

    func testAPlanIsFittedToTheSpeedsTheBodyOffers() throws {
        let plan = try BracketPlan.listed("1/16000,1/250,1/16000,60")
        let offered = ShutterSpeed.thirdStops
        let (fitted, substitutions) = plan.fitted(to: offered)
        XCTAssertEqual(fitted.frames.map(\.speed.description), ["1/8000", "1/250", "1/8000", "30\""])
        XCTAssertEqual(substitutions.map(\.description), ["1/16000 → 1/8000", "60\" → 30\""], "each once")
        XCTAssertEqual(plan.fitted(to: []).plan, plan, "a body that lists no speeds is taken at its word")
    }

    func testTheDryRunAccount() throws {
        let plan = try BracketPlan.listed("1/1000,1/250,1/60,1/15,1/4", sets: 3)
        XCTAssertEqual(plan.totalExposureSeconds, 3 * (0.001 + 0.004 + 1.0 / 60 + 1.0 / 15 + 0.25), accuracy: 1e-9)
        let lines = plan.summary
        XCTAssertEqual(lines[0], "bracketing: 3 set(s) of 5 frames, 15 exposures")
        XCTAssertEqual(lines[1], "  set 1: 1/1000  1/250  1/60  1/15  1/4")
        XCTAssertTrue(lines[4].hasPrefix("total exposure time 1.0 s; estimated duration 24 s"), lines[4])
    }
}
