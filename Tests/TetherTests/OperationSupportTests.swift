import PTPWire
import XCTest

@testable import Tether

/// Issue 28: an operation a body does not list is asked once; the answer holds for the session.
final class OperationSupportTests: XCTestCase {
    func testAnUnlistedOperationIsAskedOnceAndTheAnswerRemembered() {
        var support = OperationSupport(listed: [PTPOperationCode.getDeviceInfo.rawValue])
        XCTAssertTrue(support.supports(.getDeviceInfo))
        XCTAssertFalse(support.supports(.nikonGetEventEx))
        XCTAssertTrue(support.mayTry(.nikonGetEventEx), "not asked yet")

        support.record(.nikonGetEventEx, answered: .operationNotSupported)
        XCTAssertFalse(support.mayTry(.nikonGetEventEx), "refused: not asked again")
        XCTAssertFalse(support.supports(.nikonGetEventEx))

        support.record(.nikonGetPartialObjectEx, answered: .ok)
        XCTAssertTrue(support.supports(.nikonGetPartialObjectEx))
        support.record(.getPartialObject, answered: .accessDenied)
        XCTAssertTrue(support.supports(.getPartialObject), "denied is not unknown: the body knows the operation")
        XCTAssertEqual(support.answeredUnlisted, [.getPartialObject, .nikonGetPartialObjectEx])
    }

    func testAnUnlistedOperationThatAnswersAnErrorIsGivenUp() {
        var support = OperationSupport(listed: [])
        support.record(.nikonGetEventEx, answered: .accessDenied)
        XCTAssertTrue(support.supports(.nikonGetEventEx))
        support.giveUp(.nikonGetEventEx)
        XCTAssertFalse(support.mayTry(.nikonGetEventEx))
    }

    func testAListedOperationStaysListedWhateverItAnswers() {
        var support = OperationSupport(listed: [PTPOperationCode.nikonGetEvent.rawValue])
        support.record(.nikonGetEvent, answered: .operationNotSupported)
        XCTAssertTrue(support.supports(.nikonGetEvent))
        XCTAssertEqual(support.answeredUnlisted, [])
    }

    /// GetVendorCodes answers codes of every kind; only operations (bits 12–14 = 1, vendor or
    /// not) count, as libgphoto2 sorts Sony's extra codes.
    func testCodesANikonNamesCountAsListedWhenTheyAreOperations() {
        var support = OperationSupport(listed: [])
        let operations = support.learnNamed([0x90C7, 0xD1A0, 0x4002, 0xC101, 0x9431, 0x0001_9421, 0x101B])
        XCTAssertEqual(operations, [0x90C7, 0x9431, 0x101B])
        XCTAssertTrue(support.supports(.nikonGetEvent))
        XCTAssertTrue(support.supports(.nikonGetPartialObjectEx))
        XCTAssertFalse(support.supports(.nikonGetObjectSize), "a code over 16 bits is no operation")
    }
}
