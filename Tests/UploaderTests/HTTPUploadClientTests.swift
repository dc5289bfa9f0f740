import Foundation
import RelayCore
import TestSupport
import Uploader
import XCTest

/// The libcurl client against the real gallery process.
final class HTTPUploadClientTests: GalleryTestCase {
    private let policy = DeliveryPolicy(backoff: Backoff(base: 0.01, cap: 0.05))

    func testMultipartUploadArrivesByteIdenticalWithItsFieldsInOrder() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("source.jpg", seed: 1)
        let client = try HTTPUploadClient()
        let request = multipartRequest(
            gallery, path: photo.path, fileName: "IMG 0001.JPG", key: "key-multipart",
            fields: [FormField(name: "note", value: "Hall B, first dance"), FormField(name: "event", value: "wedding")])

        let response = try expectResponse(client.perform(request))
        XCTAssertEqual(response.statusCode, 201, response.bodySummary)
        XCTAssertEqual(policy.decide(.success(response), attempt: 0), .delivered)
        XCTAssert(response.bytesSent > Int64(photo.data.count), "multipart framing adds to the file size")

        let photos = try gallery.photos()
        XCTAssertEqual(photos.count, 1)
        let stored = try XCTUnwrap(photos.first)
        XCTAssertEqual(stored.name, "IMG_0001.JPG")
        XCTAssertEqual(stored.bytes, photo.data.count)
        XCTAssertEqual(stored.sha256, SHA256.hex(photo.data))
        XCTAssertEqual(try storedBytes(gallery, stored), photo.data)
        XCTAssertEqual(stored.idempotencyKey, "key-multipart")
        XCTAssertEqual(stored.fields, ["note": "Hall B, first dance", "event": "wedding"])
        XCTAssertEqual(stored.parts, ["note", "event", "file"])
    }

    func testRawPutArrivesUnderTheNameInItsPath() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("raw.jpg", seed: 2)
        let client = try HTTPUploadClient()
        let request = UploadRequest(
            method: "PUT", url: gallery.uploadURL + "/DSC_0042.JPG", body: .raw,
            filePath: photo.path, idempotencyKey: "key-raw")

        let response = try expectResponse(client.perform(request))
        XCTAssertEqual(response.statusCode, 201, response.bodySummary)
        XCTAssertEqual(response.bytesSent, Int64(photo.data.count))
        let stored = try XCTUnwrap(try gallery.photos().first)
        XCTAssertEqual(stored.name, "DSC_0042.JPG")
        XCTAssertEqual(stored.sha256, SHA256.hex(photo.data))
        XCTAssertEqual(stored.parts, [])
        let logged = try XCTUnwrap(try gallery.uploadRequests().first)
        XCTAssertEqual(logged.method, "PUT")
        XCTAssertEqual(logged.headers["content-type"], "image/jpeg")
        XCTAssertEqual(logged.headers["content-length"], String(photo.data.count))
    }

    func testRawPostAndPatchCarryTheBodyToo() throws {
        let gallery = try startGallery()
        let client = try HTTPUploadClient()
        for (index, method) in ["POST", "PATCH"].enumerated() {
            let photo = try makePhoto("m\(index).jpg", seed: 30 + UInt64(index))
            let request = UploadRequest(
                method: method, url: gallery.uploadURL + "/\(method).jpg", body: .raw,
                filePath: photo.path, idempotencyKey: "key-\(method)")
            let response = try expectResponse(client.perform(request))
            XCTAssertEqual(response.statusCode, 201, "\(method): \(response.bodySummary)")
        }
        let logged = try gallery.uploadRequests()
        XCTAssertEqual(logged.map(\.method), ["POST", "PATCH"])
        XCTAssertEqual(try gallery.photos().map(\.name), ["POST.jpg", "PATCH.jpg"])
    }

    func testChunkedRawBodyIsReassembledByTheGallery() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("chunked.jpg", size: 300_000, seed: 3)
        let client = try HTTPUploadClient()
        let request = UploadRequest(
            method: "PUT", url: gallery.uploadURL + "/chunked.jpg",
            headers: [HTTPHeader(name: "Transfer-Encoding", value: "chunked")], body: .raw,
            filePath: photo.path, idempotencyKey: "key-chunked")

        let response = try expectResponse(client.perform(request))
        XCTAssertEqual(response.statusCode, 201, response.bodySummary)
        let logged = try XCTUnwrap(try gallery.uploadRequests().first)
        XCTAssertEqual(logged.headers["transfer-encoding"], "chunked")
        XCTAssertNil(logged.headers["content-length"])
        XCTAssertEqual(try gallery.photos().first?.sha256, SHA256.hex(photo.data))
    }

    func testLargeFileStreamsIntact() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("large.jpg", size: 2_500_000, seed: 4)
        let client = try HTTPUploadClient()
        let response = try expectResponse(
            client.perform(
                multipartRequest(gallery, path: photo.path, fileName: "large.jpg", key: "key-large")))
        XCTAssertEqual(response.statusCode, 201, response.bodySummary)
        let stored = try XCTUnwrap(try gallery.photos().first)
        XCTAssertEqual(stored.bytes, 2_500_000)
        XCTAssertEqual(stored.sha256, SHA256.hex(photo.data))
    }

    func testHeadersAndTheIdempotencyKeyReachTheServer() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("h.jpg", seed: 5)
        let client = try HTTPUploadClient()
        let request = multipartRequest(
            gallery, path: photo.path, fileName: "h.jpg", key: "key-headers",
            headers: [HTTPHeader(name: "Authorization", value: "Bearer s3cret"), HTTPHeader(name: "X-Event", value: "Gala 2026")])
        _ = try expectResponse(client.perform(request))

        let logged = try XCTUnwrap(try gallery.uploadRequests().first)
        XCTAssertEqual(logged.headers["authorization"], "Bearer s3cret")
        XCTAssertEqual(logged.headers["x-event"], "Gala 2026")
        XCTAssertEqual(logged.headers["idempotency-key"], "key-headers")
        XCTAssertEqual(logged.idempotencyKey, "key-headers")
        XCTAssertNil(logged.headers["expect"])
        XCTAssert(logged.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
    }

    func testTheSameIdempotencyKeyTwiceStoresOnePhoto() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("twice.jpg", seed: 6)
        let client = try HTTPUploadClient()
        let request = multipartRequest(gallery, path: photo.path, fileName: "twice.jpg", key: "key-twice")

        let first = try expectResponse(client.perform(request))
        let second = try expectResponse(client.perform(request))
        XCTAssertEqual(first.statusCode, 201)
        XCTAssertEqual(second.statusCode, 200)
        XCTAssertEqual(policy.decide(.success(second), attempt: 1), .delivered)
        XCTAssertEqual(try gallery.photos().count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: gallery.photosDirectory.path), ["twice.jpg"])
        XCTAssertEqual(try gallery.uploadRequests().count, 2)
    }

    func testServerErrorIsRetriedAndTheNextAttemptDelivers() throws {
        let gallery = try startGallery(["--fail-first", "1", "--fail-status", "500"])
        let photo = try makePhoto("e.jpg", seed: 7)
        let client = try HTTPUploadClient()
        let request = multipartRequest(gallery, path: photo.path, fileName: "e.jpg", key: "key-500")

        let failed = try expectResponse(client.perform(request))
        XCTAssertEqual(failed.statusCode, 500)
        XCTAssertNil(failed.retryAfter)
        guard case .retry(let after) = policy.decide(.success(failed), attempt: 0) else {
            return XCTFail("500 must be retried")
        }
        XCTAssert((0...0.01).contains(after))
        let retried = try expectResponse(client.perform(request))
        XCTAssertEqual(policy.decide(.success(retried), attempt: 1), .delivered)
        XCTAssertEqual(try gallery.settledUploadRequests().map(\.status), ["500", "201"])
    }

    func testServiceUnavailableRetryAfterIsParsedAndHonoured() throws {
        let gallery = try startGallery(["--fail-first", "1", "--fail-status", "503", "--retry-after", "7"])
        let photo = try makePhoto("r.jpg", seed: 8)
        let client = try HTTPUploadClient()
        let response = try expectResponse(
            client.perform(
                multipartRequest(gallery, path: photo.path, fileName: "r.jpg", key: "key-503")))
        XCTAssertEqual(response.statusCode, 503)
        XCTAssertEqual(response.retryAfter, 7)
        XCTAssertEqual(policy.decide(.success(response), attempt: 0), .retry(after: 7))
        XCTAssert(response.bodySummary.contains("injected failure"), response.bodySummary)
    }

    func testFaultsChangedWhileRunningApplyToTheNextRequest() throws {
        let gallery = try startGallery()
        let client = try HTTPUploadClient()
        try gallery.setFaults(GalleryFaults(failRate: 1, failStatus: 429, retryAfter: 2))
        let photo = try makePhoto("f.jpg", seed: 9)
        let limited = try expectResponse(
            client.perform(
                multipartRequest(gallery, path: photo.path, fileName: "f.jpg", key: "key-faults")))
        XCTAssertEqual(limited.statusCode, 429)
        XCTAssertEqual(policy.decide(.success(limited), attempt: 0), .retry(after: 2))
        try gallery.setFaults(GalleryFaults(failRate: 0))
        let delivered = try expectResponse(
            client.perform(
                multipartRequest(gallery, path: photo.path, fileName: "f.jpg", key: "key-faults")))
        XCTAssertEqual(delivered.statusCode, 201)
    }

    func testDroppedConnectionIsARetryableTransportError() throws {
        let gallery = try startGallery(["--drop-first", "1"])
        let photo = try makePhoto("d.jpg", seed: 10)
        // A fresh client, so the first attempt is on a new connection: curl itself re-sends
        // once when a *reused* connection turns out dead, which would hide the drop.
        let client = try HTTPUploadClient()
        let request = multipartRequest(gallery, path: photo.path, fileName: "d.jpg", key: "key-drop")

        let error = try expectTransportError(client.perform(request))
        XCTAssertEqual(error.category, .connectionLost, error.description)
        guard case .retry = policy.decide(.failure(error), attempt: 0) else { return XCTFail("a drop must be retried") }
        let retried = try expectResponse(client.perform(request))
        XCTAssertEqual(retried.statusCode, 201)
        XCTAssertEqual(try gallery.settledUploadRequests().map(\.status), ["dropped", "201"])
    }

    func testLostAnswerThenRetryIsRecognisedAsTheSamePhoto() throws {
        let gallery = try startGallery(["--lose-first", "1"])
        let photo = try makePhoto("l.jpg", seed: 11)
        let client = try HTTPUploadClient()
        let request = multipartRequest(gallery, path: photo.path, fileName: "l.jpg", key: "key-lost")

        let error = try expectTransportError(client.perform(request))
        XCTAssertEqual(error.category, .connectionLost, error.description)
        let retried = try expectResponse(client.perform(request))
        XCTAssertEqual(retried.statusCode, 200, "the gallery already has it")
        XCTAssertEqual(try gallery.photos().count, 1)
    }

    func testRejectedNameIsPermanent() throws {
        let gallery = try startGallery(["--reject-name", "BAD", "--reject-status", "422"])
        let photo = try makePhoto("x.jpg", seed: 12)
        let client = try HTTPUploadClient()
        let response = try expectResponse(
            client.perform(
                multipartRequest(gallery, path: photo.path, fileName: "IMG_BAD_1.JPG", key: "key-reject")))
        XCTAssertEqual(response.statusCode, 422)
        guard case .permanent(let reason) = policy.decide(.success(response), attempt: 0) else {
            return XCTFail("a rejection must be permanent")
        }
        XCTAssert(reason.contains("422") && reason.contains("IMG_BAD_1.JPG"), reason)
        XCTAssertEqual(try gallery.photos().count, 0)
    }

    func testBrokenMultipartBodyIsRejectedAsPermanent() throws {
        let gallery = try startGallery()
        let jpeg = JPEGFixture.bytes(count: 1000, seed: 13)
        var body = Data(
            "--xx\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        body.append(jpeg)
        body.append(Data("\r\n".utf8))  // and no closing "--xx--"
        let path = scratch.appendingPathComponent("broken.multipart").path
        try body.write(to: URL(fileURLWithPath: path))
        let client = try HTTPUploadClient()
        let request = UploadRequest(
            method: "POST", url: gallery.uploadURL,
            headers: [HTTPHeader(name: "Content-Type", value: "multipart/form-data; boundary=xx")],
            body: .raw, filePath: path, idempotencyKey: "key-broken")

        let response = try expectResponse(client.perform(request))
        XCTAssertEqual(response.statusCode, 400)
        XCTAssert(response.bodySummary.contains("final delimiter"), response.bodySummary)
        guard case .permanent = policy.decide(.success(response), attempt: 0) else { return XCTFail("400 is permanent") }
        XCTAssertEqual(try gallery.photos().count, 0)
    }

    func testGetSendsNoBodyAndTheGalleryRefusesIt() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("g.jpg", seed: 14)
        let client = try HTTPUploadClient()
        var request = multipartRequest(gallery, path: photo.path, fileName: "g.jpg", key: "key-get")
        request.method = "GET"
        let response = try expectResponse(client.perform(request))
        XCTAssertEqual(response.statusCode, 405)
        XCTAssertEqual(response.bytesSent, 0)
        let logged = try XCTUnwrap(try gallery.uploadRequests().first)
        XCTAssertEqual(logged.method, "GET")
        XCTAssertEqual(logged.bodyBytes, 0)
        guard case .permanent = policy.decide(.success(response), attempt: 0) else { return XCTFail("405 is permanent") }
    }

    func testConnectionRefusedIsCouldNotConnect() throws {
        let port = try XCTUnwrap(ClosedPort.make())
        let photo = try makePhoto("c.jpg", seed: 15)
        let client = try HTTPUploadClient()
        let request = UploadRequest(
            url: "http://127.0.0.1:\(port)/upload", body: .multipart(fields: [], fileField: "file", fileName: "c.jpg"),
            filePath: photo.path, idempotencyKey: "key-refused")
        let error = try expectTransportError(client.perform(request))
        XCTAssertEqual(error.category, .couldNotConnect, error.description)
        XCTAssertEqual(error.curlCode, 7)
        XCTAssert(error.description.contains("\(port)"), error.description)
        guard case .retry = policy.decide(.failure(error), attempt: 5) else { return XCTFail("refused must be retried") }
    }

    func testMissingFileIsReportedBeforeConnectingAndIsPermanent() throws {
        let port = try XCTUnwrap(ClosedPort.make())
        let client = try HTTPUploadClient()
        let missing = scratch.appendingPathComponent("gone.jpg").path
        let request = UploadRequest(url: "http://127.0.0.1:\(port)/upload", body: .raw, filePath: missing, idempotencyKey: "k")
        let error = try expectTransportError(client.perform(request))
        XCTAssertEqual(error.category, .fileUnreadable)
        XCTAssert(error.message.contains(missing), error.message)
        guard case .permanent = policy.decide(.failure(error), attempt: 0) else { return XCTFail("a missing file is permanent") }
    }

    func testOneClientKeepsTheConnectionAlive() throws {
        let gallery = try startGallery()
        let client = try HTTPUploadClient()
        var responses: [UploadResponse] = []
        for index in 0..<3 {
            let photo = try makePhoto("k\(index).jpg", seed: 20 + UInt64(index))
            responses.append(
                try expectResponse(
                    client.perform(
                        multipartRequest(gallery, path: photo.path, fileName: "k\(index).jpg", key: "key-alive-\(index)"))))
        }
        XCTAssertEqual(responses.map(\.statusCode), [201, 201, 201])
        XCTAssertEqual(responses.map(\.newConnections), [1, 0, 0])
        XCTAssertEqual(responses.first?.remoteAddress, "127.0.0.1:\(gallery.port)")
        let ports = try gallery.uploadRequests().map(\.clientPort)
        XCTAssertEqual(ports.count, 3)
        XCTAssertEqual(Set(ports).count, 1, "all three requests on one connection: \(ports)")
    }

    func testRateLimitedUploadIsAccepted() throws {
        let gallery = try startGallery()
        let photo = try makePhoto("slow.jpg", size: 200_000, seed: 16)
        let client = try HTTPUploadClient()
        var request = multipartRequest(gallery, path: photo.path, fileName: "slow.jpg", key: "key-rate")
        request.maxBytesPerSecond = 1_000_000
        let response = try expectResponse(client.perform(request))
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(try gallery.photos().first?.sha256, SHA256.hex(photo.data))
    }

    func testCancellationAbortsATransferInFlight() throws {
        let gallery = try startGallery(["--delay", "30"])
        let photo = try makePhoto("z.jpg", seed: 17)
        let token = UploadCancellation()
        let outcome = OutcomeBox()
        let request = multipartRequest(gallery, path: photo.path, fileName: "z.jpg", key: "key-cancel")
        let worker = Thread {
            do throws(UploadTransportError) {
                let client = try HTTPUploadClient(cancellation: token)
                outcome.set(client.perform(request))
            } catch {
                outcome.set(.failure(error))
            }
        }
        worker.start()
        let arrived = try Subprocess.waitUntil(timeout: 30) {
            try gallery.uploadRequests().contains { $0.status == "pending" }
        }
        XCTAssert(arrived, "the upload never reached the gallery")
        XCTAssertNil(outcome.get(), "the gallery is still delaying, nothing can have finished")
        token.cancel()
        XCTAssert(Subprocess.waitUntil(timeout: 30) { outcome.get() != nil }, "the cancelled upload did not end")
        let error = try expectTransportError(try XCTUnwrap(outcome.get()))
        XCTAssertEqual(error.category, .aborted)
        guard case .failure(let again) = try HTTPUploadClient(cancellation: token).perform(request) else {
            return XCTFail("a cancelled token must stop later uploads too")
        }
        XCTAssertEqual(again.category, .aborted)
    }
}

/// The result of an upload run on another thread. `@unchecked Sendable`: `value` is only
/// touched under `lock`.
final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<UploadResponse, UploadTransportError>?

    func set(_ result: Result<UploadResponse, UploadTransportError>) {
        lock.lock()
        value = result
        lock.unlock()
    }

    func get() -> Result<UploadResponse, UploadTransportError>? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
