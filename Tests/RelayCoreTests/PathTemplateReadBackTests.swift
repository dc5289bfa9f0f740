import RelayCore
import XCTest

/// A template read backwards: the text a placeholder stands for in a path the template makes.
final class PathTemplateReadBackTests: XCTestCase {
    func testAPlaceholderInAFolderOfItsOwnIsReadBack() throws {
        let template = try PathTemplate("{photographer}/{name}")
        XCTAssertEqual(template.readBack("photographer", from: "Ana_L_pez/IMG_0001.JPG"), "Ana_L_pez")
        XCTAssertEqual(template.readBack("photographer", from: "Zoë Ortiz/IMG_0001.JPG"), "Zoë Ortiz")
        XCTAssertEqual(
            try PathTemplate("{date}/by-{photographer}-x/{seq}-{name}").readBack("photographer", from: "2026-11-29/by-ana-b-x/0001-a.jpg"),
            "ana-b")
    }

    /// As many folders as the template, each folder's written text as written, each placeholder
    /// at least one character.
    func testAPathTheTemplateDoesNotMakeGivesNothing() throws {
        let template = try PathTemplate("gala/{date}/{photographer}/{seq}-{name}")
        XCTAssertEqual(template.readBack("photographer", from: "gala/2026-11-29/ana/0001-IMG.JPG"), "ana")
        for path in [
            "IMG.JPG", "ana/IMG.JPG", "gala/2026-11-29/ana/sub/0001-IMG.JPG", "fest/2026-11-29/ana/0001-IMG.JPG",
            "gala/2026-11-29/ana/0001IMG.JPG", "gala/2026-11-29/ana/-IMG.JPG", "gala//ana/0001-IMG.JPG",
        ] {
            XCTAssertNil(template.readBack("photographer", from: path), path)
        }
        XCTAssertNil(try PathTemplate("by-{photographer}/{name}").readBack("photographer", from: "by-/a.jpg"), "never empty")
    }

    func testAPlaceholderSharingItsFolderCannotBeReadBack() throws {
        let shared = try PathTemplate("{photographer}-{seq}/{name}")
        XCTAssertEqual(
            shared.cannotReadBack("photographer"),
            "{photographer} shares a folder with {seq}, so where it ends cannot be told: give it a folder of its own, "
                + "e.g. '{photographer}/{name}'")
        XCTAssertNil(shared.readBack("photographer", from: "ana-0001/a.jpg"))
        XCTAssertEqual(try PathTemplate("{name}").cannotReadBack("photographer"), "it has no {photographer}")
        XCTAssertEqual(
            try PathTemplate("{photographer}/{photographer}/{name}").cannotReadBack("photographer"),
            "{photographer} is in it more than once")
        XCTAssertNil(try PathTemplate("{photographer}/{name}").cannotReadBack("photographer"))
    }

    /// What `render` writes is what is read back.
    func testWhatRenderWritesIsReadBack() throws {
        var values = PathTemplate.sample
        values.photographer = "Ana López"
        let template = try PathTemplate("{date}/{photographer}/{camera}-{seq}-{name}")
        let path = template.render(values, timeZone: TimeZone(identifier: "UTC")!)
        XCTAssertEqual(path, "1970-01-01/Ana_L_pez/camera-0001-IMG_0001.JPG")
        XCTAssertEqual(template.readBack("photographer", from: path), PathTemplate.pathSafe("Ana López"))
    }
}
