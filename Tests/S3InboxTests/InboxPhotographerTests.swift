import S3Inbox
import XCTest

/// `--inbox-photographer`: the option's checks, a key read back, and who is credited when the
/// key and `x-amz-meta-photographer` both say something.
final class InboxPhotographerTests: XCTestCase {
    private func refusal(_ text: String, prefix: String = "field/") -> String {
        do {
            _ = try InboxPhotographer(text, prefix: prefix)
            return "accepted"
        } catch {
            return error.description
        }
    }

    func testTemplatesThatCannotNameAPhotographerAreRefused() {
        XCTAssertEqual(
            refusal("{name}"),
            "--inbox-photographer '{name}': it has no {photographer} (for keys like field/ana/IMG_0001.JPG, give '{photographer}/{name}')")
        XCTAssertTrue(refusal("{photographer}_{name}").contains("shares a folder with {name}"), refusal("{photographer}_{name}"))
        XCTAssertTrue(refusal("{photographer}/{nmae}").contains("{nmae} is not a placeholder"), refusal("{photographer}/{nmae}"))
        XCTAssertTrue(refusal("/{photographer}/{name}").contains("without a leading '/'"))
        XCTAssertEqual(
            refusal("field/{photographer}/{name}"),
            "--inbox-photographer 'field/{photographer}/{name}': it is the key below the inbox's prefix 'field/': leave the prefix "
                + "out, e.g. '{photographer}/{name}'")
        XCTAssertEqual(refusal("field/{photographer}/{name}", prefix: ""), "accepted", "a whole bucket's keys may start so")
        XCTAssertEqual(refusal("{date}/{photographer}/{name}"), "accepted")
    }

    func testAKeyIsReadBelowThePrefix() throws {
        let photographer = try InboxPhotographer("{photographer}/{name}", prefix: "field/")
        XCTAssertEqual(photographer.read("Ana_L_pez/IMG_0001.JPG"), .named("Ana_L_pez"))
        XCTAssertEqual(photographer.read("_/IMG_0001.JPG"), .nobody, "a field relay's '_': nobody was named")
        XCTAssertEqual(photographer.read("IMG_0001.JPG"), .noMatch)
        XCTAssertEqual(photographer.read("ana/2026/IMG_0001.JPG"), .noMatch)
    }

    func testTheKeyDecidesAndTheMetadataKeepsTheSpelling() {
        typealias Credit = InboxPhotographer.Credit
        XCTAssertEqual(InboxPhotographer.credit(fromKey: nil, metadata: "Ana López"), Credit(photographer: "Ana López"))
        XCTAssertEqual(InboxPhotographer.credit(fromKey: nil, metadata: nil), Credit(photographer: nil))
        XCTAssertEqual(
            InboxPhotographer.credit(fromKey: .named("Ana_L_pez"), metadata: "Ana López"), Credit(photographer: "Ana López"),
            "the key holds the path-safe form of the metadata's name")
        let decomposed = InboxPhotographer.credit(fromKey: .named("Zoe\u{301}"), metadata: "Zo\u{E9}").photographer ?? ""
        XCTAssertEqual(Array(decomposed.unicodeScalars), Array("Zo\u{E9}".unicodeScalars), "one form in the spool")
        let fromKey = InboxPhotographer.credit(fromKey: .named("Zoe\u{301}"), metadata: nil).photographer ?? ""
        XCTAssertEqual(Array(fromKey.unicodeScalars), Array("Zo\u{E9}".unicodeScalars), "a key written on a Mac")
        XCTAssertEqual(InboxPhotographer.credit(fromKey: .named("Zoé"), metadata: nil), Credit(photographer: "Zoé"))
        XCTAssertEqual(InboxPhotographer.credit(fromKey: .named("dora"), metadata: ""), Credit(photographer: "dora"))
        XCTAssertEqual(
            InboxPhotographer.credit(fromKey: .named("dora"), metadata: "eve"),
            Credit(photographer: "dora", note: .disagrees(key: "dora", metadata: "eve")))
        XCTAssertEqual(InboxPhotographer.credit(fromKey: .nobody, metadata: "eve"), Credit(photographer: "eve"))
        XCTAssertEqual(InboxPhotographer.credit(fromKey: .nobody, metadata: nil), Credit(photographer: nil))
        XCTAssertEqual(
            InboxPhotographer.credit(fromKey: .noMatch, metadata: "carl"), Credit(photographer: "carl", note: .keyDoesNotMatch))
        XCTAssertEqual(InboxPhotographer.credit(fromKey: .noMatch, metadata: nil), Credit(photographer: nil, note: .keyDoesNotMatch))
    }
}
