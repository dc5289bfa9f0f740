import Foundation
import TestSupport
import XCTest

/// `relay run` delivering a hot folder to a real SeaweedFS bucket through an `s3://` config,
/// with the keys only in the environment; boto3 reads the objects back.
final class S3DeliveryTests: XCTestCase {
    func testPhotosLandInTheBucketUnderTheirTemplateKeysOnce() throws {
        let store = try SeaweedFSProcess()
        defer { store.stop() }
        try store.createBucket("event")
        let harness = try RelayHarness()
        let added = try harness.relay("config", "add", "--url", "s3://event/gala/{seq}-{name}", "--endpoint", store.endpoint,
                                      "--note", "bucket")
        XCTAssertEqual(added.status, 0, added.stderr)

        let refused = try harness.relay("run", "--folder", harness.dropFolder.path)
        XCTAssertEqual(refused.status, 3, "no credentials: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains("AWS_ACCESS_KEY_ID"), refused.stderr)
        XCTAssertEqual(try harness.relay("config", "add", "--url", "s3://event/{nmae}").status, 3, "unknown placeholder")

        harness.environment["AWS_ACCESS_KEY_ID"] = store.accessKey
        harness.environment["AWS_SECRET_ACCESS_KEY"] = store.secretKey
        let relay = try harness.startRun()
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(4)
        let delivered = Subprocess.waitUntil(timeout: 60) {
            ((try? harness.history()) ?? []).filter(\.success).count >= 4 || !relay.isRunning
        }
        XCTAssertTrue(delivered, relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let objects = try store.objects(in: "event")
        XCTAssertEqual(objects.count, 4, "\(objects.map(\.key))")
        for object in objects {
            let name = String(object.key.split(separator: "-").last ?? "")
            XCTAssertTrue(object.key.hasPrefix("gala/000"), object.key)
            XCTAssertEqual(object.sha256, photos[name].map(SHA256.hex), object.key)
            XCTAssertEqual(object.contentType, "image/jpeg")
        }
        let history = try harness.history()
        XCTAssertTrue(history.allSatisfy { $0.requestSummary.hasPrefix("PUT s3://event/gala/") }, "\(history.map(\.requestSummary))")
        XCTAssertFalse(history.contains { $0.requestSummary.contains(store.secretKey) }, "the secret never reaches the history")
    }
}
