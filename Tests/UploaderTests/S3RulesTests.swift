import Foundation
import RelayCore
import Uploader
import XCTest

/// The S3 destination's pure parts: where an object goes, and what an answer means.
final class S3RulesTests: XCTestCase {
    private let values = PathTemplate.Values(
        name: "IMG_0042.JPG", capturedAt: Date(timeIntervalSince1970: 1_779_540_245), camera: "0123", serial: "0123",
        sequence: 42, run: "gala")

    func testKeysAndURLsInBothAddressingStyles() throws {
        var config = RequestConfig(url: "s3://photos/gala/2026/", options: ["endpoint": "http://127.0.0.1:8333/"])
        var location = try S3Location(config: config)
        XCTAssertEqual(location.addressing, .path, "an endpoint of its own means path-style by default")
        XCTAssertEqual(location.key(for: values), "gala/2026/IMG_0042.JPG", "a plain prefix is followed by the name")
        XCTAssertEqual(location.objectURL(key: "gala/a b+c.jpg"), "http://127.0.0.1:8333/photos/gala/a%20b%2Bc.jpg")

        config = RequestConfig(url: "s3://photos", options: ["region": "eu-central-1"])
        location = try S3Location(config: config)
        XCTAssertEqual(location.addressing, .virtual)
        XCTAssertEqual(location.objectURL(key: location.key(for: values)), "https://photos.s3.eu-central-1.amazonaws.com/IMG_0042.JPG")

        config = RequestConfig(
            url: "s3://photos/{run}/{seq}-{name}", options: ["endpoint": "http://localhost:9000", "addressing": "virtual"])
        location = try S3Location(config: config)
        XCTAssertEqual(location.objectURL(key: location.key(for: values)), "http://photos.localhost:9000/gala/0042-IMG_0042.JPG")
    }

    private func answer(_ status: Int, _ body: String = "") -> DeliveryDecision {
        S3Answer.decide(
            .success(UploadResponse(statusCode: status, bodySummary: body)), attempt: 0, bucket: "photos",
            region: "us-east-1", policy: DeliveryPolicy())
    }

    func testAnswers() {
        XCTAssertEqual(answer(200), .delivered)
        guard case .permanent(let reason) = answer(403, "<Error><Code>SignatureDoesNotMatch</Code></Error>") else {
            return XCTFail("wrong credentials must be permanent")
        }
        XCTAssertTrue(reason.contains("refused relay's credentials") && reason.contains("AWS_SECRET_ACCESS_KEY"), reason)
        guard case .permanent(let missing) = answer(404, "<Error><Code>NoSuchBucket</Code></Error>") else { return XCTFail() }
        XCTAssertTrue(missing.contains("bucket 'photos' does not exist"), missing)
        guard case .retry = answer(503, "<Error><Code>SlowDown</Code></Error>") else { return XCTFail("SlowDown is retried") }
        guard case .retry = answer(400, "<Error><Code>BadDigest</Code></Error>") else { return XCTFail("a damaged body is sent again") }
        guard case .permanent = answer(400, "<Error><Code>InvalidArgument</Code></Error>") else { return XCTFail() }
        XCTAssertEqual(S3Answer.errorCode(in: "<?xml?><Error><Code>SlowDown</Code><Message>m</Message></Error>"), "SlowDown")
        XCTAssertNil(S3Answer.errorCode(in: "plain"))
    }

    func testContentTypes() {
        XCTAssertEqual(ContentType.of(fileName: "IMG_1.JPG"), "image/jpeg")
        XCTAssertEqual(ContentType.of(fileName: "DSC_1.NEF"), "image/x-nikon-nef")
        XCTAssertEqual(ContentType.of(fileName: "noext"), "application/octet-stream")
    }

    /// Every S3 request signs the same way; a body from memory names its SHA-256, which libcurl
    /// 7.88 signs but does not send (SeaweedFS refuses the signature without it).
    func testRequestsSignAndNameAnInlineBody() throws {
        let config = RequestConfig(
            url: "s3://inbox/field/", headers: ["x-amz-meta-desk": "${DESK}"], options: ["endpoint": "http://127.0.0.1:8333"])
        let environment = ["AWS_ACCESS_KEY_ID": "K", "AWS_SECRET_ACCESS_KEY": "S", "AWS_SESSION_TOKEN": "T", "DESK": "a"]
        let bucket = try S3Bucket(config: config, environment: environment, cancellation: UploadCancellation())
        let put = bucket.request("PUT", key: "field/x.json", body: .inline(Array("hello".utf8)))
        XCTAssertEqual(put.url, "http://127.0.0.1:8333/inbox/field/x.json")
        XCTAssertEqual(put.signing, AWSSigning(accessKey: "K", secretKey: "S", sessionToken: "T", region: "us-east-1"))
        XCTAssertEqual(
            put.headers,
            [
                HTTPHeader(name: "x-amz-meta-desk", value: "a"), HTTPHeader(name: "x-amz-security-token", value: "T"),
                HTTPHeader(name: "x-amz-content-sha256", value: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"),
            ])
        let head = bucket.request("HEAD", key: "field/x.json", headers: [HTTPHeader(name: "x-amz-checksum-mode", value: "ENABLED")])
        XCTAssertEqual(
            head.headers.map(\.name), ["x-amz-meta-desk", "x-amz-security-token", "x-amz-checksum-mode"], "a file body is not hashed here")
        XCTAssertThrowsError(try S3Bucket(config: config, environment: [:], cancellation: UploadCancellation()))
    }
}
