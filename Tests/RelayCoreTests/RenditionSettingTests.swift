import Foundation
import RelayCore
import XCTest

final class RenditionSettingTests: XCTestCase {
    private func decode(_ json: String) throws -> RequestConfig {
        try JSONDecoder().decode(RequestConfig.self, from: Data(json.utf8))
    }

    func testAConfigWithoutRenditionSendsOriginals() throws {
        let config = try decode(#"{"url": "https://g.example/up"}"#)
        XCTAssertNil(config.renditionSpec)
        XCTAssertFalse(
            String(decoding: try JSONEncoder().encode(config), as: UTF8.self).contains("rendition"),
            "a Camera2URL config stays as it was")
        XCTAssertNil(try decode(#"{"url": "https://g.example/up", "rendition": "original"}"#).renditionSpec)
    }

    func testASpecRoundTripsWithItsDefaults() throws {
        let config = try decode(#"{"url": "https://g.example/up", "rendition": {"maxEdge": 2048}}"#)
        XCTAssertEqual(config.renditionSpec, RenditionSpec(maxEdge: 2048, quality: 85, stripGPS: false, keepMetadata: true))
        let again = try JSONDecoder().decode(RequestConfig.self, from: try JSONEncoder().encode(config))
        XCTAssertEqual(again.rendition, config.rendition)
        let gps = try decode(#"{"url": "https://g.example/up", "rendition": {"maxEdge": 1600, "quality": 80, "stripGPS": true}}"#)
        XCTAssertEqual(gps.renditionSpec?.key, "1600q80-nogps")
        XCTAssertEqual(gps.renditionSpec?.summary, "1600 px, quality 80, GPS removed")
    }

    func testMistakesAreRefusedWithTheField() throws {
        XCTAssertThrowsError(try decode(#"{"url": "https://g.example/up", "rendition": {"maxedge": 2048}}"#)) { error in
            XCTAssertTrue("\(error)".contains("maxedge") || "\(error)".contains("maxEdge"), "\(error)")
        }
        XCTAssertThrowsError(try decode(#"{"url": "https://g.example/up", "rendition": "small"}"#))
        XCTAssertThrowsError(
            try RequestConfig(url: "https://g.example/up", rendition: .resized(RenditionSpec(maxEdge: 10))).validateCommon()
        ) { error in
            XCTAssertTrue("\(error)".contains("rendition.maxEdge"), "\(error)")
        }
        XCTAssertThrowsError(
            try RequestConfig(url: "https://g.example/up", rendition: .resized(RenditionSpec(maxEdge: 2048, quality: 0))).validateCommon())
    }

    func testSizesShowWhatWasSent() {
        XCTAssertEqual(ByteCountText.format(24_800_000, sent: 812_000), "24.8 MB → 812 KB")
        XCTAssertEqual(ByteCountText.format(24_800_000, sent: nil), "24.8 MB")
    }
}
