import GPhoto2
import XCTest

final class GPhoto2SummaryTests: XCTestCase {
    func testReadsManufacturerModelAndSerialOfThePTPDriversSummary() {
        let text = """
            Camera summary:
            Manufacturer: Canon.Inc
            Model: Canon EOS R50
              Version: 3-1.1.0
              Serial Number: 0123456789ab  \n\
            Vendor Extension ID: 0xb (1.0)

            Capture Formats: JPEG
            Device Capabilities:
            \tFile Download, File Deletion, File Upload
            """
        XCTAssertEqual(
            GPhoto2Summary(parsing: text),
            GPhoto2Summary(manufacturer: "Canon.Inc", model: "Canon EOS R50", serial: "0123456789ab"))
    }

    func testMissingOrEmptyFieldsStayNil() {
        let summary = GPhoto2Summary(parsing: "Manufacturer: Nikon Corporation\nModel: \n")
        XCTAssertEqual(summary, GPhoto2Summary(manufacturer: "Nikon Corporation"))
    }
}
