import RelayCore
import XCTest

final class ByteSizeTextTests: XCTestCase {
    func testDecimalUnitsAsTheLogPrintsThem() {
        let cases: [(String, Int64)] = [
            ("1000000", 1_000_000), ("0", 0), ("12B", 12), ("500K", 500_000), ("500k", 500_000), ("500KB", 500_000),
            ("200M", 200_000_000), ("2mb", 2_000_000), ("4G", 4_000_000_000), ("4GB", 4_000_000_000), ("1.5M", 1_500_000),
            ("0.5K", 500), ("1.1K", 1_100), ("1.50K", 1_500), (" 5M ", 5_000_000),
        ]
        for (text, bytes) in cases {
            XCTAssertEqual(ByteSizeText.bytes(text), bytes, text)
        }
    }

    func testBinaryUnitsWhenAskedFor() {
        XCTAssertEqual(ByteSizeText.bytes("256KiB"), 262_144)
        XCTAssertEqual(ByteSizeText.bytes("1MiB"), 1_048_576)
        XCTAssertEqual(ByteSizeText.bytes("4gib"), 4 << 30)
        XCTAssertEqual(ByteSizeText.bytes("0.5KiB"), 512)
    }

    func testWhatIsRefused() {
        for bad in [
            "", "K", "-1", "-5M", "+5M", "nan", "inf", "1e6", "1.5.2M", "1.M", ".5M", "5 M", "5X", "5T", "5KIBB",
            "1.5", "0.0001K", "1.0000000001G", "9223372036854775808", "10000000000G", "99999999999999999999",
        ] {
            XCTAssertNil(ByteSizeText.bytes(bad), bad)
        }
        XCTAssertEqual(ByteSizeText.bytes("9223372036854775807"), Int64.max)
    }

    func testParseNamesTheOptionTheFormsAndTheRange() {
        XCTAssertEqual(try ByteSizeText.parse("64K", option: "--chunk-size", in: 4_000...64_000_000), 64_000)
        XCTAssertThrowsError(try ByteSizeText.parse("lots", option: "--spool-max-bytes", in: 1...Int64.max)) { error in
            XCTAssertTrue(
                "\(error)".hasPrefix("--spool-max-bytes 'lots' is not a size: give bytes, or a number with a unit K, M or G"), "\(error)")
        }
        XCTAssertThrowsError(try ByteSizeText.parse("1G", option: "--chunk-size", in: 4_000...64_000_000)) { error in
            XCTAssertEqual("\(error)", "--chunk-size '1G' is out of range: give a size from 4K to 64M")
        }
    }

    func testFormatIsReadBackAsTheSameSize() {
        XCTAssertEqual(ByteSizeText.format(4_000_000_000), "4G")
        XCTAssertEqual(ByteSizeText.format(1_000_000), "1M")
        XCTAssertEqual(ByteSizeText.format(4 << 30), "4GiB")
        XCTAssertEqual(ByteSizeText.format(4096), "4KiB")
        XCTAssertEqual(ByteSizeText.format(1500), "1500")
        for bytes: Int64 in [0, 1, 999, 1000, 1024, 1500, 262_144, 1_000_000, 1 << 20, 4 << 30, 4_000_000_000, Int64.max] {
            XCTAssertEqual(ByteSizeText.bytes(ByteSizeText.format(bytes)), bytes, "\(bytes)")
        }
    }
}
