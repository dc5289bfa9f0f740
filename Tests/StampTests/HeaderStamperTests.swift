import Foundation
import PhotoMetadata
import Stamp
import TestSupport
import XCTest

/// Stamped photos as third-party readers see them: exiftool (with its Metadata Working Group
/// composite tags), the exiv2 tool, and PHP's `getimagesize`/`iptcparse` as WordPress reads
/// IPTC. The camera's rating survives and the pixels are the camera's, byte for byte.
final class HeaderStamperTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try TestPaths.makeTemporaryDirectory("stamp")
    }

    private let values: StampValues = {
        var values = StampValues()
        values.creator = "Jane Doe"
        values.credit = "Jane Doe / Studio"
        values.copyright = "© 2026 Jane Doe"
        values.caption = "Spring Gala, Lyon — frame 42 & <friends>"
        values.headline = "Spring Gala"
        values.city = "Lyon"
        values.keywords = ["gala", "2026", "fête"]
        values.capturedAt = Date(timeIntervalSince1970: 1_795_000_000)
        return values
    }()

    /// A camera-like JPEG with its own XMP (rated 4) and the owner's EXIF Artist and a
    /// description, as bodies write them.
    private func cameraPhoto() throws -> URL {
        let url = folder.appendingPathComponent("camera.jpg")
        try CameraJPEG.write(to: url, .init(width: 320, height: 240, xmp: true, seed: 7))
        let exiftool = try XCTUnwrap(Subprocess.which("exiftool"), "exiftool (libimage-exiftool-perl) is a test dependency")
        let tagged = try Subprocess.run(
            exiftool,
            [
                "-q", "-overwrite_original", "-XMP-xmp:Rating=4", "-EXIF:Artist=Camera Owner",
                "-EXIF:ImageDescription=OLYMPUS DIGITAL CAMERA",
                "-EXIF:Copyright=Owner", url.path,
            ])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        return url
    }

    private func stamped(_ source: URL) throws -> (url: URL, header: StampedHeader, original: [UInt8]) {
        let original = [UInt8](try Data(contentsOf: source))
        let header = try HeaderStamper.stamp(head: original, values: values, timeZone: TimeZone(identifier: "UTC")!).get()
        let url = folder.appendingPathComponent("stamped.jpg")
        try Data(header.prefix + original[Int(header.skip)...]).write(to: url)
        return (url, header, original)
    }

    private func exiftool(_ arguments: [String], _ file: URL) throws -> [String: String] {
        let tool = try XCTUnwrap(Subprocess.which("exiftool"))
        let result = try Subprocess.run(tool, ["-j", "-charset", "iptc=UTF8"] + arguments + [file.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return (parsed?.first ?? [:]).mapValues { value in
            (value as? [Any])?.map { "\($0)" }.joined(separator: "|") ?? "\(value)"
        }
    }

    func testExiftoolReadsTheStampInXMPIPTCAndTheMWGCompositesAndTheRatingSurvives() throws {
        let (url, header, original) = try stamped(try cameraPhoto())
        let tags = try exiftool(
            [
                "-use", "MWG", "-MWG:Creator", "-MWG:Copyright", "-MWG:Description", "-XMP-dc:all", "-XMP-photoshop:all", "-IPTC:all",
                "-XMP-xmp:Rating", "-IPTCDigest", "-CurrentIPTCDigest", "-EXIF:Artist",
            ], url)
        XCTAssertEqual(tags["Creator"], "Jane Doe", "\(tags)")
        XCTAssertEqual(tags["Copyright"], "© 2026 Jane Doe")
        XCTAssertEqual(tags["Description"], values.caption)
        XCTAssertEqual(tags["By-line"], "Jane Doe")
        XCTAssertEqual(tags["Credit"], "Jane Doe / Studio")
        XCTAssertEqual(tags["CopyrightNotice"], "© 2026 Jane Doe")
        XCTAssertEqual(tags["Caption-Abstract"], values.caption)
        XCTAssertEqual(tags["Keywords"], "gala|2026|fête")
        XCTAssertEqual(tags["City"], "Lyon")
        XCTAssertEqual(tags["Headline"], "Spring Gala")
        XCTAssertEqual(tags["Rating"], "4", "the camera's rating is kept")
        XCTAssertNotNil(tags["IPTCDigest"])
        XCTAssertEqual(tags["IPTCDigest"], tags["CurrentIPTCDigest"], "the digest is the IIM's")
        XCTAssertEqual(tags["Artist"], "Jane Doe", "the camera's Artist, replaced in place")
        XCTAssertTrue(header.notes.contains { $0.contains("ImageDescription blanked") }, "\(header.notes)")
        let stampedBytes = [UInt8](try Data(contentsOf: url))
        let rest = try JPEGSegments(stampedBytes).restStart
        XCTAssertEqual(Array(stampedBytes[rest...]), Array(original[Int(header.skip)...]), "the pixels are the camera's")
    }

    func testExiv2ReadsTheIPTCAndTheXMP() throws {
        let (url, _, _) = try stamped(try cameraPhoto())
        let exiv2 = try XCTUnwrap(Subprocess.which("exiv2"), "exiv2 is a test dependency")
        let iptc = try Subprocess.run(exiv2, ["-pi", url.path])
        XCTAssertTrue(iptc.stdout.contains("Iptc.Application2.Byline") && iptc.stdout.contains("Jane Doe"), iptc.stdout + iptc.stderr)
        XCTAssertTrue(iptc.stdout.contains("Iptc.Envelope.CharacterSet"), iptc.stdout)
        let xmp = try Subprocess.run(exiv2, ["-px", url.path])
        XCTAssertTrue(xmp.stdout.contains("Xmp.dc.creator") && xmp.stdout.contains("Xmp.xmp.Rating"), xmp.stdout + xmp.stderr)
        XCTAssertTrue(xmp.stdout.contains(#"lang="x-default" © 2026 Jane Doe"#), "dc:rights a language alternative: \(xmp.stdout)")
        XCTAssertFalse(xmp.stderr.contains("Failed to decode"), "the XMP toolkit reads the packet whole: \(xmp.stderr)")
    }

    func testPHPReadsTheIPTCAsWordPressDoes() throws {
        let (url, _, _) = try stamped(try cameraPhoto())
        let php = try XCTUnwrap(Subprocess.which("php"), "php-cli is a test dependency")
        let script = """
            getimagesize($argv[1], $info);
            $iptc = iptcparse($info['APP13']);
            echo json_encode(['byline' => $iptc['2#080'][0], 'credit' => $iptc['2#110'][0], 'caption' => $iptc['2#120'][0],
                'copyright' => $iptc['2#116'][0], 'title' => $iptc['2#105'][0], 'keywords' => $iptc['2#025']]);
            """
        let result = try Subprocess.run(php, ["-r", script, url.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let read = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(read["byline"] as? String, "Jane Doe")
        XCTAssertEqual(read["credit"] as? String, "Jane Doe / Studio")
        XCTAssertEqual(read["caption"] as? String, values.caption)
        XCTAssertEqual(read["copyright"] as? String, "© 2026 Jane Doe")
        XCTAssertEqual(read["title"] as? String, "Spring Gala")
        XCTAssertEqual(read["keywords"] as? [String], ["gala", "2026", "fête"])
    }

    func testAFieldTooLongForIIMIsCutThereOnlyAndAPhotoWithoutMetadataIsStampedToo() throws {
        var long = values
        long.creator = String(repeating: "é", count: 20)
        let plain = folder.appendingPathComponent("plain.jpg")
        try CameraJPEG.write(to: plain, .init(width: 64, height: 48, seed: 2))
        let original = [UInt8](try Data(contentsOf: plain))
        let header = try HeaderStamper.stamp(head: original, values: long).get()
        let url = folder.appendingPathComponent("long.jpg")
        try Data(header.prefix + original[Int(header.skip)...]).write(to: url)
        let tags = try exiftool(["-IPTC:By-line", "-XMP-dc:Creator"], url)
        XCTAssertEqual(tags["By-line"], String(repeating: "é", count: 16), "32 bytes, never half a character")
        XCTAssertEqual(tags["Creator"], long.creator, "XMP keeps it whole: \(header.notes)")
    }

    func testWhatIsNotAJPEGOrHasACorruptHeaderIsRefused() {
        XCTAssertEqual(HeaderStamper.stamp(head: Array("II*\0".utf8) + [8, 0, 0, 0], values: values), .failure(.notJPEG))
        guard case .failure(.corruptHeader) = HeaderStamper.stamp(head: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0], values: values) else {
            return XCTFail("a segment running past the end")
        }
    }

    /// What the camera (or an editor before relay) wrote and the template does not set stays:
    /// XMP properties and IIM datasets alike; the Latin-1 IIM of a block that did not say UTF-8
    /// is kept as UTF-8.
    func testWhatTheTemplateDoesNotSetIsKeptInXMPAndIIM() throws {
        let url = folder.appendingPathComponent("edited.jpg")
        try CameraJPEG.write(to: url, .init(width: 160, height: 120, xmp: true, seed: 8))
        let tool = try XCTUnwrap(Subprocess.which("exiftool"))
        let tagged = try Subprocess.run(
            tool,
            [
                "-q", "-overwrite_original", "-charset", "iptc=Latin", "-XMP-dc:Description=Editor's caption", "-IPTC:Source=Agency",
                "-IPTC:Country-PrimaryLocationName=Françe", "-IPTC:By-line=Old Name", url.path,
            ])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        var credit = StampValues()
        credit.credit = "Jane Doe / Studio"
        credit.creator = "Jane Doe"
        let original = [UInt8](try Data(contentsOf: url))
        let header = try HeaderStamper.stamp(head: original, values: credit).get()
        let stamped = folder.appendingPathComponent("edited-stamped.jpg")
        try Data(header.prefix + original[Int(header.skip)...]).write(to: stamped)
        let tags = try exiftool(["-XMP-dc:Description", "-IPTC:all", "-IPTCDigest", "-CurrentIPTCDigest"], stamped)
        XCTAssertEqual(tags["Description"], "Editor's caption", "an empty caption leaves the editor's")
        XCTAssertEqual(tags["Source"], "Agency")
        XCTAssertEqual(tags["Country-PrimaryLocationName"], "Françe", "kept, as UTF-8")
        XCTAssertEqual(tags["By-line"], "Jane Doe", "the stamp's replaces the old")
        XCTAssertEqual(tags["Credit"], "Jane Doe / Studio")
    }

    /// A packet that declares entities (one that would read a local file into the photo) is
    /// refused: the XMP is left as it was and the IIM carries the stamp without a digest, so a
    /// reader takes the IIM.
    func testAnXMPPacketDeclaringEntitiesIsNotParsed() throws {
        let secret = folder.appendingPathComponent("secret.txt")
        try Data("TOKEN-1234".utf8).write(to: secret)
        let packet =
            #"<!DOCTYPE x [<!ENTITY e SYSTEM "file://\#(secret.path)">]><x:xmpmeta xmlns:x="adobe:ns:meta/">"#
            + #"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" "#
            + #"xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:Label>&e;</xmp:Label></rdf:Description></rdf:RDF></x:xmpmeta>"#
        let head =
            [0xFF, 0xD8] + JPEGSegments.segment(0xE1, body: Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8))
            + [0xFF, 0xDA, 0x00, 0x02]
        let header = try HeaderStamper.stamp(head: head, values: values).get()
        XCTAssertFalse(String(decoding: header.prefix, as: UTF8.self).contains("TOKEN-1234"))
        XCTAssertTrue(header.notes.contains { $0.contains("document type") }, "\(header.notes)")
        let app13 = try XCTUnwrap(try JPEGSegments(header.prefix + [0xFF, 0xDA, 0, 2]).segments.first { $0.kind == .iptc })
        let body = Array((header.prefix + [0xFF, 0xDA, 0, 2])[app13.body])
        XCTAssertFalse(body.indices.dropLast(5).contains { Array(body[$0..<($0 + 6)]) == Array("8BIM".utf8) + [0x04, 0x25] }, "no digest")
    }

    /// A template too big for one APP13 is refused, not written past the segment's limit.
    func testAStampTooBigForOneSegmentIsRefused() {
        var many = values
        many.keywords = (0..<1_200).map { "keyword-\($0)-" + String(repeating: "x", count: 40) }
        XCTAssertEqual(HeaderStamper.stamp(head: [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02], values: many), .failure(.tooLarge))
    }
}
