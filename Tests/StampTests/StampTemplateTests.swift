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
        XCTAssertThrowsError(try StampTemplate(fields: ["headline": "{headline}"]), "a field does not use itself")
        XCTAssertNoThrow(try StampTemplate(fields: ["caption": "{caption}", "title": "{title}"]), "but the editor's words are a variable")
        XCTAssertThrowsError(try StampTemplate(fields: ["caption": "{a}", "a": "{b}", "b": "x"]), "one level of fields")
    }

    /// Issue 50: the editor's caption and title go in place of the template's, or in its
    /// `{caption}` / `{title}`; without them, the template's words without a dangling separator.
    func testTheEditorsCaptionReplacesTheTemplatesOrFillsItsVariable() throws {
        var captioned = photo
        captioned.editor = try PhotoCaption(caption: "First dance", title: "Dance")
        let plain = try StampTemplate(fields: ["caption": "{model} frame {seq}", "creator": "Anna", "headline": "{caption}"])
        XCTAssertEqual(plain.render(captioned).caption, "First dance", "in place of the template's caption")
        XCTAssertEqual(plain.render(captioned).title, "Dance", "and title")
        XCTAssertEqual(plain.render(photo).caption, "Canon EOS R50 frame 42", "none: the template's")
        XCTAssertEqual(plain.render(captioned).headline, "Canon EOS R50 frame 42", "elsewhere {caption} is the template's field")
        let around = try StampTemplate(fields: ["caption": "{caption} — Photo: {creator}", "creator": "Anna", "title": "{title} ({date})"])
        XCTAssertEqual(around.render(captioned).caption, "First dance — Photo: Anna")
        XCTAssertTrue(around.render(captioned).title.hasPrefix("Dance (20"), around.render(captioned).title)
        XCTAssertEqual(around.render(photo).caption, "Photo: Anna", "no dangling dash")
        XCTAssertTrue(StampTemplate.empty.render(captioned).caption == "First dance" && !StampTemplate.empty.writesAnything)
        XCTAssertThrowsError(try PhotoCaption(caption: String(repeating: "x", count: 2001))) { error in
            XCTAssertEqual("\(error)", "the caption is 2001 bytes long; at most 2000 fit: shorten it")
        }
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
