import SSDP
import SSDPWire
import XCTest

/// SSDP datagrams as cameras send them (shapes recorded by airnef from a Sony A7s and a Canon
/// 6D), and the filtering of everything else on a network.
final class SSDPMessageTests: XCTestCase {
    private func bytes(_ lines: [String]) -> [UInt8] { Array(lines.joined(separator: "\r\n").utf8) }

    private let canonAnswer = [
        "HTTP/1.1 200 OK", "Cache-Control: max-age=1800", "EXT:",
        "Location: http://192.168.1.10:49152/upnp/CameraDevDesc.xml",
        "Server: Camera OS/1.0 UPnP/1.0 Canon Device Discovery/1.0",
        "ST: urn:schemas-canon-com:service:ICPO-SmartPhoneEOSSystemService:1",
        "USN: uuid:00000000-0000-0000-0001-2C9EFCD137BE::urn:schemas-canon-com:service:ICPO-SmartPhoneEOSSystemService:1",
        "", "",
    ]

    func testACanonAnswerIsReadWithHeaderNamesInAnyCase() throws {
        let message = try SSDPMessage(parsing: bytes(canonAnswer))
        XCTAssertEqual(message.kind, .response(status: 200))
        XCTAssertEqual(message.header("LOCATION"), "http://192.168.1.10:49152/upnp/CameraDevDesc.xml")
        XCTAssertEqual(message.header("ext"), "")
        XCTAssertEqual(CameraServiceType.of(message), .canonSmartphone)
        XCTAssertTrue(message.isAlive)
    }

    func testASonyAnnouncementWithLineFeedsOnlyIsACamera() throws {
        let text = """
            NOTIFY * HTTP/1.1
            HOST: 239.255.255.250:1900
            LOCATION: http://192.168.1.209:1900/DeviceDescription.xml
            NT: urn:microsoft-com:service:MtpNullService:1
            NTS: ssdp:alive
            USN: uuid:00000000-0001-0010-8000-98f17039c6fc::urn:microsoft-com:service:MtpNullService:1

            """
        let message = try SSDPMessage(parsing: Array(text.utf8))
        XCTAssertEqual(message.kind, .notify)
        XCTAssertEqual(CameraServiceType.of(message), .sonyMTP)
        let camera = try XCTUnwrap(SSDPSearch.camera(in: Array(text.utf8), from: "192.168.1.209"))
        XCTAssertEqual(camera.host, "192.168.1.209")
        XCTAssertEqual(camera.service.vendor, "Sony")
        XCTAssertNil(camera.problem)
    }

    func testAByebyeIsNotACamera() {
        let text = bytes([
            "NOTIFY * HTTP/1.1", "NT: urn:schemas-canon-com:service:ICPO-SmartPhoneEOSSystemService:1",
            "NTS: ssdp:byebye", "LOCATION: http://192.168.1.10:49152/d.xml", "", "",
        ])
        XCTAssertNil(SSDPSearch.camera(in: text, from: "192.168.1.10"), "a Canon going to sleep says byebye")
    }

    func testAnAnswerToSsdpAllIsRecognisedByItsUSN() throws {
        let text = bytes([
            "HTTP/1.1 200 OK", "LOCATION: http://10.0.0.5:49152/upnp/CameraDevDesc.xml", "ST: upnp:rootdevice",
            "USN: uuid:1::urn:schemas-canon-com:service:ICPO-WFTEOSSystemService:1", "", "",
        ])
        XCTAssertEqual(SSDPSearch.camera(in: text, from: "10.0.0.5")?.service, .canonEOSUtility)
    }

    func testRoutersSearchesAndGarbageAreNotCameras() {
        let router = bytes([
            "HTTP/1.1 200 OK", "LOCATION: http://192.168.1.1:5000/rootDesc.xml",
            "ST: urn:schemas-upnp-org:device:InternetGatewayDevice:1", "USN: uuid:9::upnp:rootdevice", "", "",
        ])
        XCTAssertNil(SSDPSearch.camera(in: router, from: "192.168.1.1"))
        let search = SSDPMessage.search(target: CameraServiceType.sonyMTP.rawValue, maxWait: 1).encoded()
        XCTAssertNil(SSDPSearch.camera(in: search, from: "192.168.1.7"), "another client's search is not an answer")
        XCTAssertThrowsError(try SSDPMessage(parsing: Array("GET / HTTP/1.1\r\n\r\n".utf8)))
        XCTAssertThrowsError(try SSDPMessage(parsing: bytes(["HTTP/1.1 200 OK", "no colon here", ""])))
        XCTAssertThrowsError(try SSDPMessage(parsing: [UInt8](repeating: 65, count: SSDPMessage.maximumLength + 1)))
        let ftp = bytes(["HTTP/1.1 200 OK", "LOCATION: ftp://10.0.0.5/d.xml", "ST: \(CameraServiceType.sonyMTP.rawValue)", "", ""])
        XCTAssertNil(SSDPSearch.camera(in: ftp, from: "10.0.0.5"), "descriptions are read over http only")
    }

    func testADescriptionElsewhereThanTheAnnouncerIsNotRead() throws {
        let text = bytes(["HTTP/1.1 200 OK", "LOCATION: http://10.9.9.9/d.xml", "ST: \(CameraServiceType.sonyMTP.rawValue)", "", ""])
        let camera = try XCTUnwrap(SSDPSearch.camera(in: text, from: "10.0.0.5"))
        XCTAssertEqual(camera.host, "10.0.0.5")
        XCTAssertNotNil(camera.problem)
    }

    func testASearchAndAnAnswerRoundTrip() throws {
        let search = SSDPMessage.search(target: "ssdp:all", maxWait: 1)
        let text = String(decoding: search.encoded(), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\n"), text)
        XCTAssertTrue(text.hasSuffix("\r\n\r\n"))
        XCTAssertEqual(try SSDPMessage(parsing: search.encoded()), search)
        let answer = SSDPMessage.answer(
            type: CameraServiceType.canonEOSUtility.rawValue, location: "http://127.0.0.1:8/d.xml",
            uniqueServiceName: "uuid:x::y", server: "relay")
        XCTAssertEqual(try SSDPMessage(parsing: answer.encoded()), answer)
    }

    func testSearchTargetsParse() {
        XCTAssertEqual(SSDPTarget.parse("127.0.0.1:1900"), SSDPTarget(host: "127.0.0.1", port: 1900))
        XCTAssertNil(SSDPTarget.parse("127.0.0.1"))
        XCTAssertNil(SSDPTarget.parse("camera.local:1900"))
        XCTAssertNil(SSDPTarget.parse("127.0.0.1:0"))
    }
}
