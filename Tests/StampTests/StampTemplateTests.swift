import Foundation
import RelayCore
import Stamp
import XCTest

/// The template: checked when it is set, filled per photo.
final class StampTemplateTests: XCTestCase {
    private let photo = StampPhoto(
        capturedAt: Date(timeIntervalSince1970: 1_795_000_000), model: "Canon EOS R50", serial: "SIM0CANON0001", name: "IMG_0042.JPG",
        sequence: 42)

    func testVariablesAndFieldsAreFilledPerPhoto() throws {
        let template = try StampTemplate(fields: [
            "creator": "Jane Doe", "copyright": "© {year} Jane Doe", "caption": "{event}, {date} — frame {seq}", "event": "Spring Gala",
            "keywords": "gala, 2026 ,, {model}",
        ])
        let values = template.render(photo, timeZone: TimeZone(identifier: "UTC")!)
        XCTAssertEqual(values.copyright, "© 2026 Jane Doe")
        XCTAssertEqual(values.caption, "Spring Gala, 2026-11-18 — frame 42")
        XCTAssertEqual(values.keywords, ["gala", "2026", "Canon EOS R50"])
        XCTAssertTrue(template.writesAnything)
    }

    func testAnUnknownVariableOrABadFieldIsRefusedWhenSet() {
        XCTAssertThrowsError(try StampTemplate(fields: ["caption": "{evnt} {date}"])) { error in
            XCTAssertTrue("\(error)".contains("{evnt} is not a variable"), "\(error)")
        }
        XCTAssertThrowsError(try StampTemplate(fields: ["caption": "{date"]))
        XCTAssertThrowsError(try StampTemplate(fields: ["Caption": "x"]), "field names are lower case")
        XCTAssertThrowsError(try StampTemplate(fields: ["date": "x"]), "a photo variable is not a field")
        XCTAssertThrowsError(try StampTemplate(fields: ["caption": "{caption}"]), "a field does not use itself")
        XCTAssertThrowsError(try StampTemplate(fields: ["caption": "{a}", "a": "{b}", "b": "x"]), "one level of fields")
    }

    func testFieldsLongerThanIIMKeepsAreNamedWithTheirLimit() throws {
        let template = try StampTemplate(fields: ["creator": String(repeating: "J", count: 40), "caption": "short"])
        let cuts = template.iimCuts(for: photo)
        XCTAssertEqual(cuts.map(\.field), ["creator"])
        XCTAssertEqual(cuts.first?.limit, 32)
    }

    func testTheStoreMergesFieldsAndCountsVersions() throws {
        let root = try XCTUnwrap(
            FileManager.default.url(
                for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: URL(fileURLWithPath: "/tmp"), create: true))
        let store = StampStore(home: RelayHome(root: root))
        XCTAssertNil(try store.load())
        XCTAssertEqual(try store.set(["creator": "Jane Doe", "credit": "Studio"]).version, 1)
        let second = try store.set(["credit": "", "city": "Lyon"])
        XCTAssertEqual(second.version, 2)
        XCTAssertEqual(second.fields, ["creator": "Jane Doe", "city": "Lyon"])
        XCTAssertThrowsError(try store.set(["caption": "{nope}"]))
        XCTAssertEqual(try store.load()?.version, 2, "a refused template changes nothing")
        try store.clear()
        XCTAssertEqual(try store.load()?.fields, [:])
        XCTAssertEqual(try store.load()?.version, 3)
    }

    /// A stamp.json edited by hand is checked as a template being set: one that would loop is
    /// refused when read, never rendered.
    func testATemplateFileIsCheckedWhenRead() throws {
        let looping = Data(#"{"version": 3, "fields": {"caption": "{a}", "a": "{b}", "b": "{a}"}}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(StampTemplate.self, from: looping))
        let fine = Data(#"{"version": 3, "fields": {"caption": "{event}", "event": "Gala"}}"#.utf8)
        XCTAssertEqual(try JSONDecoder().decode(StampTemplate.self, from: fine).version, 3)
    }
}
