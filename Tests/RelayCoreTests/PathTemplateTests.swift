import Foundation
import RelayCore
import XCTest

final class PathTemplateTests: XCTestCase {
    private let values = PathTemplate.Values(
        name: "IMG_0042.CR3", capturedAt: Date(timeIntervalSince1970: 1_779_540_245), camera: "EOS R5",
        serial: "0123", sequence: 42, run: "gala")
    private let utc = TimeZone(identifier: "UTC")!

    func testEveryPlaceholder() throws {
        let template = try PathTemplate("e/{date}/{time}/{camera}-{serial}/{seq}-{stem}.{ext}/{name}/{run}")
        XCTAssertEqual(template.render(values, timeZone: utc), "e/2026-05-23/124405/EOS_R5-0123/0042-IMG_0042.cr3/IMG_0042.CR3/gala")
        XCTAssertTrue(template.hasPlaceholders)
        XCTAssertFalse(try PathTemplate("plain/prefix").hasPlaceholders)
    }

    /// Issue 29: a bracketing frame's set, frame and speed, in a path (`1-250`, `2s`) and in a
    /// form field as written (`1/250`); empty (`_` in a path) for any other photo.
    func testBracketPlaceholders() throws {
        var frame = values
        frame.bracket = BracketTag(set: 2, frame: 3, exposure: "1/250")
        let template = try PathTemplate("hdr/{set}/{frame}-{exposure}-{name}")
        XCTAssertEqual(template.render(frame, timeZone: utc), "hdr/2/3-1-250-IMG_0042.CR3")
        frame.bracket?.exposure = "2\""
        XCTAssertEqual(template.render(frame, timeZone: utc), "hdr/2/3-2s-IMG_0042.CR3")
        XCTAssertEqual(template.render(values, timeZone: utc), "hdr/_/_-_-IMG_0042.CR3")
        frame.bracket?.exposure = "1/250"
        XCTAssertEqual(try PathTemplate("{exposure} (set {set})").renderText(frame, timeZone: utc), "1/250 (set 2)")
        XCTAssertEqual(try PathTemplate("{exposure}").renderText(values, timeZone: utc), "")
    }

    /// A value cannot add a folder, climb out of one, or carry characters that need escaping.
    func testValuesAreMadeSafe() throws {
        var hostile = values
        hostile.name = "../../etc/pass wd"
        hostile.camera = ".."
        hostile.run = ""
        let rendered = try PathTemplate("{camera}/{name}/{run}").render(hostile, timeZone: utc)
        XCTAssertEqual(rendered, "_/.._.._etc_pass_wd/_")
        XCTAssertFalse(rendered.split(separator: "/").contains { $0 == ".." || $0 == "." })
    }

    func testUnknownOrUnclosedPlaceholdersAreRefused() {
        for (text, expected) in [("a/{nmae}", "{nmae} is not a placeholder"), ("a/{name", "not closed"), ("a/name}", "has no '{'")] {
            XCTAssertThrowsError(try PathTemplate(text), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
