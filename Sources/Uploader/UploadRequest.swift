import Foundation
import RelayCore

/// How the photo travels in the request body.
public enum UploadBody: Sendable, Equatable {
    /// `multipart/form-data`: the text `fields` in order, then one file part named `fileField`
    /// with the request's `contentType` and the file name `fileName` (made safe before sending).
    case multipart(fields: [FormField], fileField: String, fileName: String)
    /// The bare file as the whole body with the request's `contentType` (presigned-URL PUTs, S3).
    /// A `Content-Type` in the request headers replaces it.
    case raw
    /// A small body held in memory (a JSON question to an API), with the request's
    /// `contentType`; the file is not read.
    case inline([UInt8])
}

/// A file that takes an answer's body (a desk's download from its S3 inbox). The request asks
/// for the bytes from `offset` on (its own `Range` header): a 206 is written from `offset`, a 200
/// (the whole object, the server ignoring the range) replaces the file from its start.
public struct AnswerFile: Sendable, Equatable {
    public var path: String
    public var offset: Int64

    public init(path: String, offset: Int64) {
        self.path = path
        self.offset = offset
    }
}

/// Everything one upload attempt needs, fully resolved, so the worker thread that performs it
/// reads no shared state. Built by the pipeline from a request config and a spooled photo.
///
/// Only POST, PUT and PATCH carry the photo. GET and DELETE are sent without a body (the file
/// is not read): an HTTP body on them has no defined meaning and many servers and proxies drop
/// it, so sending one would only hide a misconfigured request config.
public struct UploadRequest: Sendable, Equatable {
    /// GET, POST, PUT, PATCH or DELETE (upper case).
    public var method: String
    /// An absolute `http://` or `https://` URL.
    public var url: String
    /// Extra headers, sent as given. `Idempotency-Key` is added from `idempotencyKey`.
    public var headers: [HTTPHeader]
    public var body: UploadBody
    /// The photo on disk; it is streamed, never read into memory whole.
    public var filePath: String
    /// Sent as `Idempotency-Key` on every attempt for this photo, so a gallery can recognise a
    /// retry whose earlier answer was lost.
    public var idempotencyKey: String
    /// Limit for the whole attempt; nil means only the stall rule below ends a slow transfer.
    public var timeoutSeconds: Double?
    /// Limit for establishing the connection (TCP and TLS).
    public var connectTimeoutSeconds: Double
    /// A transfer slower than `lowSpeedLimit` bytes/s for `lowSpeedTime` seconds is aborted as
    /// stalled (a venue network that silently stops moving data), and then retried.
    public var lowSpeedLimit: Int
    public var lowSpeedTime: Int
    /// Upload rate cap in bytes/s, so photo uploads leave room on a shared uplink.
    public var maxBytesPerSecond: Int?
    /// The photo's media type: `image/jpeg`, or a RAW type when RAW files are taken.
    public var contentType: String
    /// Set for requests libcurl signs with AWS Signature Version 4 (S3-compatible stores).
    public var signing: AWSSigning?
    /// Sent in place of the file's first bytes (a stamped header).
    public var prefix: BodyPrefix?
    /// Bytes of the answer's body kept in `UploadResponse.body`: none by default, enough for
    /// the JSON a gallery's API answers with (WordPress's attachment) when its reader needs it.
    public var keptAnswer = 0
    /// Whether libcurl may send the whole body again on its own, as it does when a kept-alive
    /// connection closes without a byte of answer (it cannot tell a connection that died before
    /// the request from an answer lost after it). False for a destination that would keep the
    /// second copy and asks before a re-send (WordPress, Immich): the re-send is then relay's,
    /// after its question.
    public var isRepeatable = true
    /// Where a 2xx answer's body goes instead of `UploadResponse.body`: written to a file as it
    /// arrives, so that a download cut halfway keeps what came and resumes from there.
    public var answerFile: AnswerFile?

    public init(
        method: String = "POST",
        url: String,
        headers: [HTTPHeader] = [],
        body: UploadBody,
        filePath: String,
        idempotencyKey: String,
        timeoutSeconds: Double? = nil,
        connectTimeoutSeconds: Double = 10,
        lowSpeedLimit: Int = 1,
        lowSpeedTime: Int = 30,
        maxBytesPerSecond: Int? = nil,
        contentType: String = "image/jpeg",
        signing: AWSSigning? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.filePath = filePath
        self.idempotencyKey = idempotencyKey
        self.timeoutSeconds = timeoutSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.lowSpeedLimit = lowSpeedLimit
        self.lowSpeedTime = lowSpeedTime
        self.maxBytesPerSecond = maxBytesPerSecond
        self.contentType = contentType
        self.signing = signing
    }
}
