import Foundation
import RelayCore
import S3Inbox
import Uploader
import XCTest

/// The answers the stores give to a conditional PUT (docs/S3INBOX.md), read as plain values.
final class ConditionalWriteAnswerTests: XCTestCase {
    private func answer(_ status: Int, code: String? = nil, etag: String? = nil) -> Result<UploadResponse, UploadTransportError> {
        let body = code.map { "<?xml version=\"1.0\"?><Error><Code>\($0)</Code><Message>m</Message></Error>" } ?? ""
        return .success(
            UploadResponse(statusCode: status, bodySummary: body, headers: etag.map { [HTTPHeader(name: "ETag", value: $0)] } ?? []))
    }

    private let conditions: [WriteCondition] = [.absent, .matches(ETag("c1"))]

    func testWrittenIsOursWithTheNewETag() {
        for condition in conditions {
            XCTAssertEqual(ConditionalWriteAnswer.read(answer(200, etag: "\"9a0364b9\""), condition: condition), .ours(ETag("9a0364b9")))
        }
        XCTAssertEqual(ConditionalWriteAnswer.read(answer(200), condition: .absent), .ours(nil))
    }

    /// 412 from every store, 409 ConditionalRequestConflict from AWS: another desk came first.
    func testPreconditionFailedAndConflictAreLost() {
        for condition in conditions {
            XCTAssertEqual(
                ConditionalWriteAnswer.read(answer(412, code: "PreconditionFailed"), condition: condition),
                .lost(said: "PreconditionFailed, HTTP 412"))
            XCTAssertEqual(
                ConditionalWriteAnswer.read(answer(409, code: "ConditionalRequestConflict"), condition: condition),
                .lost(said: "ConditionalRequestConflict, HTTP 409"))
        }
    }

    /// moto (and AWS) say NoSuchKey to If-Match on a claim deleted meanwhile, where SeaweedFS says
    /// 412; without a condition on an existing key, a 404 is not a lost race.
    func testNoSuchKeyIsLostOnlyForIfMatch() {
        XCTAssertEqual(
            ConditionalWriteAnswer.read(answer(404, code: "NoSuchKey"), condition: .matches(ETag("c1"))), .lost(said: "NoSuchKey, HTTP 404")
        )
        XCTAssertEqual(
            ConditionalWriteAnswer.read(answer(404, code: "NoSuchKey"), condition: .absent), .refused(said: "NoSuchKey, HTTP 404"))
        for condition in conditions {
            XCTAssertEqual(
                ConditionalWriteAnswer.read(answer(404, code: "NoSuchBucket"), condition: condition),
                .refused(said: "NoSuchBucket, HTTP 404"))
        }
    }

    func testNotImplementedMeansNoConditionalWrites() {
        for condition in conditions {
            XCTAssertEqual(
                ConditionalWriteAnswer.read(answer(501, code: "NotImplemented"), condition: condition),
                .unsupported(said: "NotImplemented, HTTP 501"))
            XCTAssertEqual(ConditionalWriteAnswer.read(answer(501), condition: condition), .unsupported(said: "HTTP 501"))
            XCTAssertEqual(
                ConditionalWriteAnswer.read(answer(400, code: "NotImplemented"), condition: condition),
                .unsupported(said: "NotImplemented, HTTP 400"))
        }
    }

    func testServerAndNetworkFailuresAreRetried() {
        for status in [500, 503, 429, 408] {
            XCTAssertEqual(ConditionalWriteAnswer.read(answer(status), condition: .absent), .retryLater(said: "HTTP \(status)"))
        }
        XCTAssertEqual(
            ConditionalWriteAnswer.read(answer(503, code: "SlowDown"), condition: .absent), .retryLater(said: "SlowDown, HTTP 503"))
        let cut = UploadTransportError(category: .couldNotConnect, message: "connection refused")
        XCTAssertEqual(ConditionalWriteAnswer.read(.failure(cut), condition: .absent), .retryLater(said: "connection refused"))
    }

    func testOtherRefusalsAreTheOwnersToFix() {
        XCTAssertEqual(
            ConditionalWriteAnswer.read(answer(403, code: "AccessDenied"), condition: .absent), .refused(said: "AccessDenied, HTTP 403"))
        XCTAssertEqual(ConditionalWriteAnswer.read(answer(400), condition: .absent), .refused(said: "HTTP 400"))
    }
}

/// The startup check's verdict from its three answers.
final class ConditionalWritesProbeTests: XCTestCase {
    private let store = "s3://inbox/.relay/probe/x (http://127.0.0.1:9000)"

    private func answer(_ status: Int, code: String? = nil) -> Result<UploadResponse, UploadTransportError> {
        .success(UploadResponse(statusCode: status, bodySummary: code.map { "<Error><Code>\($0)</Code></Error>" } ?? ""))
    }

    private func verdict(_ answers: [Result<UploadResponse, UploadTransportError>]) -> ConditionalWritesError? {
        for (step, outcome) in zip(ConditionalWritesProbe.Step.allCases, answers) {
            if let error = ConditionalWritesProbe.judge(outcome, step: step, store: store) { return error }
        }
        return nil
    }

    func testWorkingStoresPass() {
        XCTAssertNil(verdict([answer(200), answer(412, code: "PreconditionFailed"), answer(412, code: "PreconditionFailed")]))
        XCTAssertNil(verdict([answer(200), answer(409, code: "ConditionalRequestConflict"), answer(404, code: "NoSuchKey")]))
    }

    func testSecondWriteTakenIsRefusedAndSaysWhy() {
        let error = verdict([answer(200), answer(200), answer(412)])
        XCTAssertEqual(error, .ignoresIfNoneMatch(store: store))
        XCTAssertTrue(
            error?.description.hasPrefix("this store does not refuse a second write of the same key (If-None-Match)") ?? false,
            error?.description ?? "")
        XCTAssertTrue(error?.description.contains("two desks could take the same photo") ?? false)
        XCTAssertTrue(error?.description.contains("or run one desk") ?? false)
    }

    func testWrongETagTakenIsRefused() {
        XCTAssertEqual(verdict([answer(200), answer(412), answer(200)]), .ignoresIfMatch(store: store))
    }

    func testNotImplementedAtAnyStepIsRefused() {
        XCTAssertEqual(verdict([answer(501, code: "NotImplemented")]), .notImplemented(store: store, said: "NotImplemented, HTTP 501"))
        XCTAssertEqual(verdict([answer(200), answer(412), answer(501)]), .notImplemented(store: store, said: "HTTP 501"))
        XCTAssertTrue(
            ConditionalWritesError.notImplemented(store: store, said: "HTTP 501").description.contains(
                "does not do conditional writes (HTTP 501)"))
    }

    /// Missing keys are named before anything is sent, not taken for a store without conditional writes.
    func testMissingKeysAreNamed() throws {
        let config = RequestConfig(url: "s3://inbox/field/", options: ["endpoint": "http://127.0.0.1:9"])
        XCTAssertThrowsError(
            try ConditionalWrites.check(config: config, environment: ["AWS_ACCESS_KEY_ID": "K"], desk: "a")
        ) { error in
            XCTAssertEqual(
                error as? ConditionalWritesError,
                .config(.missingCredentials(variable: "AWS_SECRET_ACCESS_KEY", config: config.label)))
        }
    }

    func testOtherAnswersNameTheStep() {
        XCTAssertEqual(
            verdict([answer(403, code: "AccessDenied")]),
            .refused(store: store, step: "first If-None-Match: * PUT", said: "AccessDenied, HTTP 403"))
        XCTAssertEqual(
            verdict([answer(412)]), .refused(store: store, step: "first If-None-Match: * PUT", said: "HTTP 412"),
            "a fresh probe key cannot already exist")
        XCTAssertEqual(verdict([answer(200), answer(503)]), .unreachable(store: store, said: "HTTP 503"))
    }
}
