import Tether
import XCTest

final class UnsupportedCameraTests: XCTestCase {
    func testMakersWithoutAWiFiDialectAreRecognised() {
        let cases: [(String, String)] = [
            ("FUJIFILM", "Fujifilm"), ("OLYMPUS CORPORATION", "Olympus/OM System"), ("OM Digital Solutions", "Olympus/OM System"),
            ("Panasonic", "Panasonic"), ("RICOH IMAGING COMPANY, LTD.", "Ricoh/Pentax"), ("PENTAX", "Ricoh/Pentax"),
        ]
        for (manufacturer, brand) in cases {
            XCTAssertEqual(UnsupportedCamera.recognise(manufacturer: manufacturer, model: " X-T4 ")?.brand, brand, manufacturer)
        }
        XCTAssertEqual(UnsupportedCamera.recognise(manufacturer: "FUJIFILM", model: " X-T4 ")?.model, "X-T4")
    }

    func testMakersRelaySpeaksAndUnknownOnesAreLeftToTheDialects() {
        for manufacturer in ["Canon Inc.", "Nikon Corporation", "Sony Corporation", "", "Acme Cameras"] {
            XCTAssertNil(UnsupportedCamera.recognise(manufacturer: manufacturer, model: "X"), manufacturer)
        }
    }

    func testTheErrorSaysWhatToUseInsteadAndIsNotRetried() {
        let error = UnsupportedCamera(brand: "Fujifilm", model: "X-T4").error(peer: "10.0.0.2:15740")
        XCTAssertFalse(error.isRetryable)
        XCTAssertFalse("\(error)".contains("\n"), "one line")
        XCTAssertTrue("\(error)".contains("Fujifilm X-T4, which relay does not support over Wi-Fi"), "\(error)")
        XCTAssertTrue("\(error)".contains("relay run --ftp") && "\(error)".contains("relay ftp-setup"), "the camera FTP road: \(error)")
    }
}
