import Foundation
import RelayCore
import TestSupport
import Uploader
import XCTest

/// The S3 destination against a real SeaweedFS with authentication on, its objects read back
/// with boto3; the "not now" answer through the local gallery, which can be told to give it.
final class S3DestinationTests: GalleryTestCase {
    /// One store for the whole class (it takes seconds to start); each test uses a bucket of its own.
    nonisolated(unsafe) private static var shared: SeaweedFSProcess?

    override class func tearDown() {
        shared?.stop()
        shared = nil
        super.tearDown()
    }

    /// The store, with a fresh bucket `bucket`; it takes virtual-host-style requests for `*.localhost`.
    private func startStore(bucket: String) throws -> SeaweedFSProcess {
        let store = try Self.shared ?? SeaweedFSProcess(domainName: "localhost")
        Self.shared = store
        try store.createBucket(bucket)
        return store
    }

    private func item(_ path: String, name: String = "IMG_0042.JPG", photographer: String = "") -> DeliveryItem {
        var values = PathTemplate.Values(
            name: name, capturedAt: Date(timeIntervalSince1970: 1_779_540_245),
            camera: "0123", serial: "0123", sequence: 42, run: "gala")
        values.photographer = photographer
        return DeliveryItem(filePath: path, name: name, key: "key-42", contentType: ContentType.of(fileName: name), template: values)
    }

    private func destination(_ config: RequestConfig, _ environment: [String: String]) throws -> S3Destination {
        try S3Destination(config: config, environment: environment, policy: DeliveryPolicy(), cancellation: UploadCancellation())
    }

    private func credentials(_ store: SeaweedFSProcess) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": store.accessKey, "AWS_SECRET_ACCESS_KEY": store.secretKey]
    }

    /// Path-style: stored under the template's key with the file's checksum, type and the photo's
    /// key; a second attempt for the same photo (its answer lost) leaves one object, not two.
    func testPhotoIsStoredOnceUnderItsKey() throws {
        let store = try startStore(bucket: "photos")
        let photo = try makePhoto("IMG_0042.JPG", size: 300_000, seed: 4)
        let s3 = try destination(
            RequestConfig(url: "s3://photos/gala/{date}/{name}", options: ["endpoint": .string(store.endpoint)]), credentials(store))
        let first = s3.deliver(item(photo.path), growing: nil, attempt: 0)
        XCTAssertEqual(first.decision, .delivered, first.problem ?? "")
        XCTAssertEqual(first.statusCode, 200)
        XCTAssertEqual(s3.deliver(item(photo.path), growing: nil, attempt: 1).decision, .delivered)
        let key = "gala/\(PathTemplate.day(Date(timeIntervalSince1970: 1_779_540_245)))/IMG_0042.JPG"
        let objects = try store.objects(in: "photos")
        XCTAssertEqual(objects.map(\.key), [key])
        XCTAssertEqual(objects.first?.sha256, SHA256.hex(photo.data))
        XCTAssertEqual(objects.first?.size, photo.data.count)
        XCTAssertEqual(objects.first?.contentType, "image/jpeg")
        XCTAssertEqual(objects.first?.metadata["relay-key"], "key-42")
        XCTAssertTrue(s3.summary(of: item(photo.path)).hasPrefix("PUT s3://photos/\(key)"))
        XCTAssertFalse(s3.acceptsGrowingFiles, "the checksum needs the whole file")
    }

    /// The photographer travels as `x-amz-meta-photographer`, percent-encoded (metadata is ASCII),
    /// for the desk that takes the photo from an S3 inbox; a photo without one carries none. The
    /// checksum's algorithm header beside it leaves SeaweedFS's checksum and the probe working.
    func testPhotographerTravelsAsMetadata() throws {
        let store = try startStore(bucket: "inbox")
        let photo = try makePhoto("IMG_0046.JPG", size: 40_000, seed: 11)
        let s3 = try destination(
            RequestConfig(url: "s3://inbox/gala", options: ["endpoint": .string(store.endpoint)]), credentials(store))
        let credited = item(photo.path, name: "IMG_0046.JPG", photographer: "Ana L\u{F3}pez")
        let report = s3.deliver(credited, growing: nil, attempt: 0)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(s3.deliver(item(photo.path, name: "IMG_0047.JPG"), growing: nil, attempt: 0).decision, .delivered)

        let objects = try store.objects(in: "inbox")
        XCTAssertEqual(objects.map(\.key), ["gala/IMG_0046.JPG", "gala/IMG_0047.JPG"])
        XCTAssertEqual(objects.first?.metadata["photographer"], "Ana%20L%C3%B3pez")
        XCTAssertEqual(objects.last?.metadata["relay-key"], "key-42")
        XCTAssertNil(objects.last?.metadata["photographer"])
        XCTAssertEqual(S3Bucket.metadataText("Ana%20L%C3%B3pez"), "Ana L\u{F3}pez")
        XCTAssertEqual(s3.probe(credited, attempt: 1), .landed(answer: "found by HEAD, same SHA-256"))
        XCTAssertTrue(s3.summary(of: credited).hasSuffix("x-amz-meta-relay-key: key-42 x-amz-meta-photographer: Ana%20L%C3%B3pez"))
        XCTAssertFalse(s3.summary(of: item(photo.path)).contains("photographer"))
    }

    /// Virtual-host style (`photos.localhost`: curl sends *.localhost to loopback by itself),
    /// and a RAW keeps its own type.
    func testVirtualHostStyleAndRawType() throws {
        let store = try startStore(bucket: "rawphotos")
        let photo = try makePhoto("IMG_0043.CR3", size: 50_000, seed: 5)
        let config = RequestConfig(
            url: "s3://rawphotos/raw", options: ["endpoint": .string("http://localhost:\(store.s3Port)"), "addressing": "virtual"])
        let report = try destination(config, credentials(store)).deliver(item(photo.path, name: "IMG_0043.CR3"), growing: nil, attempt: 0)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        let objects = try store.objects(in: "rawphotos")
        XCTAssertEqual(objects.map(\.key), ["raw/IMG_0043.CR3"])
        XCTAssertEqual(objects.first?.contentType, "image/x-canon-cr3")
    }

    /// Wrong credentials are permanent, and the message says so; nothing is stored. Missing
    /// credentials are named before anything is sent. (SeaweedFS makes a missing bucket for an
    /// admin identity, so `NoSuchBucket` is covered by the rules' own test.)
    func testRefusalsArePermanentAndSayWhy() throws {
        let store = try startStore(bucket: "refused")
        let photo = try makePhoto("IMG_0044.JPG", size: 20_000, seed: 6)
        var environment = credentials(store)
        environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let wrong = try destination(RequestConfig(url: "s3://refused/x", options: ["endpoint": .string(store.endpoint)]), environment)
            .deliver(item(photo.path), growing: nil, attempt: 0)
        guard case .permanent(let reason) = wrong.decision else { return XCTFail("wrong credentials: \(wrong)") }
        XCTAssertTrue(reason.contains("refused relay's credentials") && reason.contains("SignatureDoesNotMatch"), reason)

        XCTAssertEqual(try store.objects(in: "refused"), [])

        XCTAssertThrowsError(try destination(RequestConfig(url: "s3://photos/x"), ["AWS_ACCESS_KEY_ID": "k"])) { error in
            XCTAssertTrue("\(error)".contains("needs AWS_SECRET_ACCESS_KEY in the environment"), "\(error)")
        }
    }

    /// A store that answers 503 (SlowDown, as S3 throttles) is retried, and the retry delivers.
    /// SeaweedFS cannot be made to throttle one request, so the local gallery plays the store:
    /// a path-style PUT to `/upload/NAME` is the gallery's raw upload.
    func testServiceUnavailableIsRetried() throws {
        let gallery = try startGallery()
        try gallery.setFaults(GalleryFaults(failStatus: 503, failFirst: 1))
        let photo = try makePhoto("IMG_0045.JPG", size: 20_000, seed: 7)
        let s3 = try destination(
            RequestConfig(url: "s3://upload", options: ["endpoint": .string(gallery.baseURL)]),
            ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"])
        let first = s3.deliver(item(photo.path, name: "IMG_0045.JPG"), growing: nil, attempt: 0)
        guard case .retry = first.decision else { return XCTFail("503 must be retried: \(first)") }
        XCTAssertEqual(first.statusCode, 503)
        let second = s3.deliver(item(photo.path, name: "IMG_0045.JPG"), growing: nil, attempt: 1)
        XCTAssertEqual(second.decision, .delivered, second.problem ?? "")
        let stored = try gallery.photos()
        XCTAssertEqual(stored.map(\.name), ["IMG_0045.JPG"])
        XCTAssertEqual(stored.first?.sha256, SHA256.hex(photo.data))
        let request = try XCTUnwrap(gallery.uploadRequests().last)
        XCTAssertTrue(request.headers["authorization"]?.hasPrefix("AWS4-HMAC-SHA256 Credential=k/") == true, "\(request.headers)")
        XCTAssertNotNil(request.headers["x-amz-checksum-sha256"])
    }

    /// A re-send after a lost answer asks first: the HEAD finds the stamped photo's SHA-256 and
    /// nothing is sent again. The witness is the object's `relay-key` metadata, which a second
    /// PUT of this item (given another key for the purpose) would have replaced.
    func testAReSendFindsTheObjectByItsChecksumAndSendsNothing() throws {
        let store = try startStore(bucket: "probed")
        let photo = try makePhoto("IMG_0050.JPG", size: 300_000, seed: 8)
        let s3 = try destination(RequestConfig(url: "s3://probed/gala", options: ["endpoint": .string(store.endpoint)]), credentials(store))
        var stamped = item(photo.path)
        stamped.prefix = BodyPrefix(bytes: Array("stamped header".utf8), replacing: 2)
        XCTAssertEqual(s3.deliver(stamped, growing: nil, attempt: 0).decision, .delivered)

        var again = stamped
        again.key = "key-of-a-second-put"
        let report = s3.deliverAskingFirst(again, growing: nil, attempt: 1, progress: nil)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(report.answer, "already there: found by HEAD, same SHA-256")
        let objects = try store.objects(in: "probed")
        XCTAssertEqual(objects.map(\.key), ["gala/IMG_0042.JPG"])
        XCTAssertEqual(objects.first?.metadata["relay-key"], "key-42", "no second PUT")
        XCTAssertEqual(objects.first?.sha256, SHA256.hex(Data("stamped header".utf8) + photo.data.dropFirst(2)))
    }

    /// A cut object under the key (or the photo stamped otherwise) is not the photo: the
    /// re-send goes, and the object is then the photo, whole.
    func testAReSendReplacesAnObjectWithOtherBytes() throws {
        let store = try startStore(bucket: "replaced")
        let photo = try makePhoto("IMG_0051.JPG", size: 200_000, seed: 9)
        let cut = scratch.appendingPathComponent("cut.jpg")
        try photo.data.prefix(50_000).write(to: cut)
        let s3 = try destination(
            RequestConfig(url: "s3://replaced/gala", options: ["endpoint": .string(store.endpoint)]), credentials(store))
        XCTAssertEqual(s3.deliver(item(cut.path), growing: nil, attempt: 0).decision, .delivered)
        XCTAssertEqual(s3.probe(item(photo.path), attempt: 1), .absent)
        XCTAssertEqual(
            s3.probe(item(scratch.appendingPathComponent("none.jpg").path), attempt: 1), .unknowable, "unreadable: the send says")

        let report = s3.deliverAskingFirst(item(photo.path), growing: nil, attempt: 1, progress: nil)
        XCTAssertEqual(report.decision, .delivered, report.problem ?? "")
        XCTAssertEqual(report.statusCode, 200, "sent: \(report.answer ?? "")")
        let objects = try store.objects(in: "replaced")
        XCTAssertEqual(objects.map(\.key), ["gala/IMG_0042.JPG"])
        XCTAssertEqual(objects.first?.sha256, SHA256.hex(photo.data))
        XCTAssertEqual(s3.probe(item(photo.path, name: "IMG_0052.JPG"), attempt: 1), .absent, "404: nothing there")
    }

    /// A store that does not answer leaves the question unanswered and the attempt retried,
    /// nothing sent; credentials it refuses for the HEAD cannot tell, and the PUT then says why.
    func testAQuestionTheStoreCannotAnswer() throws {
        let photo = try makePhoto("IMG_0053.JPG", size: 20_000, seed: 10)
        let port = try XCTUnwrap(ClosedPort.make())
        let stopped = try destination(
            RequestConfig(url: "s3://gone/x", options: ["endpoint": .string("http://127.0.0.1:\(port)")]),
            ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"])
        guard case .unanswered(let report) = stopped.probe(item(photo.path), attempt: 2), case .retry = report.decision else {
            return XCTFail("a stopped store: \(stopped.probe(item(photo.path), attempt: 2))")
        }
        XCTAssertTrue(report.problem?.hasPrefix("could not ask whether an earlier attempt landed: ") == true, report.problem ?? "")
        XCTAssertEqual(report.evidence, .unreachable)

        let store = try startStore(bucket: "refusing")
        var environment = credentials(store)
        environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let refused = try destination(RequestConfig(url: "s3://refusing/x", options: ["endpoint": .string(store.endpoint)]), environment)
        XCTAssertEqual(refused.probe(item(photo.path), attempt: 1), .unknowable)
        guard case .permanent(let reason) = refused.deliverAskingFirst(item(photo.path), growing: nil, attempt: 1, progress: nil).decision
        else { return XCTFail("the PUT names the refusal") }
        XCTAssertTrue(reason.contains("refused relay's credentials"), reason)
    }
}
