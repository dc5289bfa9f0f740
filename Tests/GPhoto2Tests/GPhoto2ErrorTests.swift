import GPhoto2
import XCTest

final class GPhoto2ErrorTests: XCTestCase {
    func testClaimedDeviceNamesTheVolumeMonitor() {
        // The text libgphoto2_port/libusb1/libusb1.c puts in the context when the claim fails.
        let error = GPhoto2Error(
            code: GPhoto2Result.usbClaim, operation: "open the camera at usb",
            detail: "Could not claim interface 0 (Device or resource busy). Make sure no other program "
                + "(gvfs-gphoto2-volume-monitor) or kernel module (such as sdc2xx, stv680, spca50x) is using the device")
        XCTAssertEqual(error.kind, .claimedByAnotherProgram)
        XCTAssertTrue(error.description.contains("systemctl --user stop gvfs-gphoto2-volume-monitor"), error.description)
        XCTAssertTrue(error.isRetryable)
    }

    func testClaimTextWithAPlainIOErrorIsStillAClaim() {
        let error = GPhoto2Error(
            code: GPhoto2Result.io, operation: "open the camera at usb",
            detail: "An error occurred in the io-library ('Could not claim the USB device'): …")
        XCTAssertEqual(error.kind, .claimedByAnotherProgram)
    }

    func testAccessDeniedPointsAtTheUdevRuleAndGroup() {
        let error = GPhoto2Error(
            code: GPhoto2Result.io, operation: "open the camera at usb:001,005",
            detail: "Could not open USB device (Access denied (insufficient permissions))")
        XCTAssertEqual(error.kind, .permissionDenied)
        XCTAssertTrue(error.description.contains("plugdev"), error.description)
        XCTAssertTrue(error.description.contains("60-libgphoto2-6.rules"), error.description)
    }

    func testNoCameraSaysWhichUSBModeTethers() {
        let error = GPhoto2Error(
            code: GPhoto2Result.modelNotFound, operation: "open the camera at usb", detail: "Could not detect any camera")
        XCTAssertEqual(error.kind, .noCamera)
        XCTAssertTrue(error.description.contains("Mass Storage"), error.description)
        XCTAssertTrue(error.description.contains("Could not detect any camera"), "libgphoto2's own words are kept")
    }

    func testIOFailuresAreADroppedCameraRelayReconnectsTo() {
        for code in [GPhoto2Result.io, GPhoto2Result.ioRead, GPhoto2Result.ioWrite, GPhoto2Result.timeout, GPhoto2Result.usbFind] {
            let error = GPhoto2Error(code: code, operation: "download IMG_0001.JPG")
            XCTAssertTrue(error.isRetryable)
            XCTAssertTrue([.connectionLost, .noCamera].contains(error.kind), "\(code)")
        }
        XCTAssertTrue(GPhoto2Error(code: GPhoto2Result.io, operation: "x").description.contains("reconnects"))
    }

    func testUnknownPortIsNotRetried() {
        let error = GPhoto2Error(code: GPhoto2Result.unknownPort, operation: "open the camera at gphoto2 port foo:bar")
        XCTAssertEqual(error.kind, .unknownPort)
        XCTAssertFalse(error.isRetryable)
        XCTAssertTrue(error.description.contains("gphoto2 --list-ports"))
    }

    func testBusyAndNotSupportedAreToldApart() {
        XCTAssertEqual(GPhoto2Error(code: GPhoto2Result.cameraBusy, operation: "fire the camera").kind, .busy)
        XCTAssertEqual(GPhoto2Error(code: GPhoto2Result.notSupported, operation: "fire the camera").kind, .notSupported)
        XCTAssertEqual(GPhoto2Error(code: GPhoto2Result.fileNotFound, operation: "describe x").kind, .fileGone)
    }
}
