import PTPWire
import XCTest

@testable import Tether

/// The pure parts of the vendor dialects: which dialect a DeviceInfo gets, Canon's remote mode
/// and shutter speed codes, Sony's extended DeviceInfo, and how an undescribed object is named.
final class DialectTests: XCTestCase {
    private func info(
        _ vendor: PTPVendorExtension, _ manufacturer: String, _ operations: [PTPOperationCode],
        model: String = "M"
    ) -> PTPDeviceInfo {
        PTPDeviceInfo(
            vendorExtensionID: vendor, operationsSupported: operations.map(\.rawValue),
            manufacturer: manufacturer, model: model, deviceVersion: "1", serialNumber: "S")
    }

    func testTheDialectIsPickedFromVendorIdManufacturerAndOperations() {
        XCTAssertTrue(DialectCatalog.dialect(for: info(.canon, "Canon Inc.", [.canonEOSGetEvent])) is CanonEOSDialect)
        XCTAssertTrue(
            DialectCatalog.dialect(for: info(.microsoft, "Canon Inc.", [.canonEOSGetEvent])) is CanonEOSDialect,
            "Canon bodies that report the Microsoft vendor id")
        XCTAssertTrue(
            DialectCatalog.dialect(for: info(.canon, "Canon Inc.", [])) is StandardDialect,
            "a Canon without EOS operations (old PowerShot) uses standard events")
        XCTAssertTrue(
            DialectCatalog.dialect(for: info(.canon, "Canon Inc.", [.canonEOSSetRemoteMode])) is CanonEOSDialect,
            "an EOS M lists GetEvent only after its remote mode is set")
        XCTAssertTrue(DialectCatalog.dialect(for: info(.nikon, "Nikon", [.nikonGetEvent])) is NikonDialect)
        XCTAssertTrue(
            DialectCatalog.dialect(for: info(.mtp, "Nikon Corporation", [])) is NikonDialect,
            "a Nikon Z reports 0xFFFFFFFF over PTP/IP (libgphoto2 issue 1135)")
        XCTAssertTrue(
            DialectCatalog.dialect(for: info(.mtp, "Sony Corporation", [])) is SonyDialect,
            "a Sony reports 0xFFFFFFFF over PTP/IP")
        XCTAssertTrue(DialectCatalog.dialect(for: info(.sony, "Sony Corporation", [.sonyGetSDIOExtDeviceInfo])) is SonyDialect)
        XCTAssertTrue(
            DialectCatalog.dialect(for: info(.microsoft, "Relay Simulated Cameras", [.canonEOSGetEvent])) is StandardDialect,
            "an operation code alone does not make a camera Canon")
        XCTAssertEqual(CameraVendor.of(info(.mtp, "FUJIFILM", [])), .fujifilm)
        XCTAssertEqual(CameraVendor.of(info(.fuji, "", [])), .fujifilm)
        XCTAssertEqual(CameraVendor.of(info(.mtp, "OLYMPUS", [])), .other)
    }

    func testCanonRemoteModeFollowsLibgphoto2sModelRules() {
        XCTAssertEqual(CanonEOSDialect.remoteMode(info(.canon, "Canon Inc.", [], model: "Canon EOS R50")), 1)
        XCTAssertEqual(CanonEOSDialect.remoteMode(info(.canon, "Canon Inc.", [], model: "Canon EOS M50")), 0x15)
        XCTAssertEqual(CanonEOSDialect.remoteMode(info(.canon, "Canon Inc.", [], model: "Canon EOS M6 Mark II")), 1)
        XCTAssertEqual(
            CanonEOSDialect.remoteMode(
                info(
                    .canon, "Canon Inc.", [.canonEOSRemoteReleaseOn],
                    model: "Canon PowerShot SX740 HS")), 0x15)
        XCTAssertEqual(
            CanonEOSDialect.remoteMode(info(.canon, "Canon Inc.", [], model: "Canon PowerShot SX740 HS")), 1,
            "a PowerShot without EOS remote release is not EOS M-like")
        XCTAssertEqual(
            CanonEOSDialect.remoteMode(
                info(
                    .canon, "Canon Inc.", [.canonEOSRemoteReleaseOn],
                    model: "Canon PowerShot SX720 HS")), 0x11)
    }

    /// A Z that denies GetPartialObject is read with GetPartialObjectEx, listed or not; the
    /// switch is made once. A body that lists no GetPartialObject is asked GetPartialObjectEx
    /// once; one that refused it gets GetObject.
    func testNikonFallsBackToGetPartialObjectExWhenGetPartialObjectIsDenied() {
        func operation(_ ex: NikonDialect.Availability, listed: Bool, denied: Bool) -> DownloadOperation {
            NikonDialect.downloadOperation(ex: ex, partialListed: listed, partialDenied: denied)
        }
        XCTAssertEqual(operation(.notAsked, listed: true, denied: false), .partialObject, "no unlisted operation where a listed one works")
        XCTAssertEqual(operation(.notAsked, listed: true, denied: true), .nikonPartialObjectEx)
        XCTAssertEqual(operation(.answers, listed: true, denied: false), .nikonPartialObjectEx)
        XCTAssertEqual(operation(.notAsked, listed: false, denied: false), .nikonPartialObjectEx, "asked once")
        XCTAssertEqual(operation(.refuses, listed: false, denied: false), .wholeObject)
        XCTAssertEqual(operation(.refuses, listed: true, denied: false), .partialObject)
        XCTAssertEqual(operation(.refuses, listed: true, denied: true), .wholeObject)
        var dialect = NikonDialect()
        XCTAssertFalse(dialect.switchDownload(afterRefusal: .generalError))
        XCTAssertTrue(dialect.switchDownload(afterRefusal: .accessDenied))
        XCTAssertFalse(dialect.switchDownload(afterRefusal: .accessDenied), "switched already: the object is set aside now")
        var standard = StandardDialect()
        XCTAssertFalse(standard.switchDownload(afterRefusal: .accessDenied))
    }

    func testCanonShutterSpeedCodes() throws {
        XCTAssertEqual(try XCTUnwrap(CanonShutterSpeed.seconds(code: 0x38)), 1, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(CanonShutterSpeed.seconds(code: 0x10)), 32, accuracy: 1e-9, "shown as 30 s")
        XCTAssertEqual(try XCTUnwrap(CanonShutterSpeed.seconds(code: 0x20)), 8, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(CanonShutterSpeed.seconds(code: 0xA0)), 1.0 / 8192, accuracy: 1e-9, "shown as 1/8000")
        XCTAssertNil(CanonShutterSpeed.seconds(code: 0x0C), "bulb")
        XCTAssertNil(CanonShutterSpeed.seconds(code: 0))
    }

    func testSonyExtendedDeviceInfoIsMergedByCodeKind() throws {
        var writer = PTPDataWriter()
        writer.appendU16(0x12C)
        writer.appendArrayU16([0x5005, 0xD215, 0x9209])
        writer.appendArrayU16([0xC201, 0x1015])
        let extra = try SonyExtDeviceInfo(decoding: writer.bytes)
        XCTAssertEqual(extra.version, 0x12C)
        var device = info(.mtp, "Sony Corporation", [.getDeviceInfo])
        device.merge(extra)
        device.merge(extra)
        XCTAssertEqual(device.operationsSupported, [0x1001, 0x9209, 0x1015])
        XCTAssertEqual(device.eventsSupported, [0xC201])
        XCTAssertEqual(device.devicePropertiesSupported, [0x5005, 0xD215])
        XCTAssertThrowsError(try SonyExtDeviceInfo(decoding: [0x2C]))
    }

    func testFileSignatures() {
        XCTAssertEqual(FileSignature.kind(of: [0xFF, 0xD8, 0xFF, 0xE1, 0, 0]), .jpeg)
        XCTAssertEqual(FileSignature.kind(of: [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]), .raw, "NEF, ARW, CR2: little-endian TIFF")
        XCTAssertEqual(FileSignature.kind(of: [0x4D, 0x4D, 0, 0x2A]), .raw)
        XCTAssertEqual(FileSignature.kind(of: [0, 0, 0, 0x18] + Array("ftypcrx ".utf8)), .raw, "CR3")
        XCTAssertEqual(FileSignature.kind(of: [0, 0, 0, 0x18] + Array("ftypqt  ".utf8)), .other, "a movie")
        XCTAssertEqual(FileSignature.kind(of: []), .other)
    }

    /// The name relay gives an undescribed object depends on its handle alone, so retries and
    /// restarts give the same spool identity (and the gallery the same Idempotency-Key).
    func testAnUndescribedObjectIsNamedStablyByItsHandle() {
        let jpeg = PTPObjectInfo.described(handle: 0x1A2B, kind: .jpeg, size: 5000, namePrefix: "NIKON")
        XCTAssertEqual(jpeg.filename, "NIKON_00001A2B.JPG")
        XCTAssertEqual(jpeg.photoKind, .jpeg)
        XCTAssertEqual(
            CameraObject(handle: 0x1A2B, info: jpeg).identityKey,
            CameraObject(handle: 0x1A2B, info: .described(handle: 0x1A2B, kind: .jpeg, size: 5000, namePrefix: "NIKON")).identityKey)
        let raw = PTPObjectInfo.described(handle: 7, kind: .raw, size: 5000, namePrefix: "NIKON")
        XCTAssertEqual(raw.photoKind, .raw)
        XCTAssertEqual(TakeDecision.decide(CameraObject(handle: 7, info: raw), seen: false, existing: false, includeRAW: false), .skipRAW)
    }

    func testFirstConnectionRule() {
        var rule = FirstConnectionRule(firstConnection: true)
        rule.listed([1, 2, 3], includeExisting: false, remembered: nil)
        XCTAssertEqual(rule.toRemember, ["1", "2", "3"])
        XCTAssertTrue(rule.isExisting(2))
        rule.noteExisting(1, key: "k1", file: "A.JPG")
        rule.noteExisting(2, key: "k2", file: "B.JPG")
        XCTAssertTrue(rule.announced(2), "shot right after connecting: its 'existing' decision is dropped")
        XCTAssertFalse(rule.isExisting(2))
        XCTAssertEqual(rule.toRemember, ["1", "3"], "the photo shot now is not remembered as on the card")
        XCTAssertFalse(rule.announced(9))
        XCTAssertEqual(rule.linesToRecord.map(\.file), ["A.JPG"])
        XCTAssertEqual(rule.finished(), 1)
        XCTAssertFalse(rule.isPending)
        XCTAssertNil(rule.toRemember)

        var again = FirstConnectionRule(firstConnection: true)
        again.listed([1, 3, 0x1a, 0x1b], includeExisting: false, remembered: ["1", "3", "7"])
        XCTAssertTrue(again.isExisting(1) && again.isExisting(3))
        XCTAssertFalse(again.isExisting(0x1a), "shot after a first connection that dropped before it was done: new")
        XCTAssertFalse(again.isExisting(7))
        XCTAssertEqual(again.toRemember, ["1", "3"])

        var later = FirstConnectionRule(firstConnection: false)
        later.listed([1], includeExisting: false, remembered: nil)
        XCTAssertFalse(later.isExisting(1), "only the first connection treats the card as existing")
        var including = FirstConnectionRule(firstConnection: true)
        including.listed([1], includeExisting: true, remembered: nil)
        XCTAssertFalse(including.isExisting(1))
    }
}
