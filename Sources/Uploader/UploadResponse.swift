import Foundation

/// What the server answered to one attempt (any status: classifying it is DeliveryPolicy's job).
public struct UploadResponse: Sendable, Equatable {
    /// The final HTTP status (interim 1xx answers are skipped).
    public var statusCode: Int
    /// `Retry-After` of the final answer in seconds from when it arrived, if present and valid.
    public var retryAfter: TimeInterval?
    /// The start of the response body as printable text, for the history and error messages.
    public var bodySummary: String
    /// The start of the response body as received, up to the request's `answerLimit`.
    public var body: [UInt8] = []
    /// Request body bytes curl sent in this attempt.
    public var bytesSent: Int64
    /// Wall time of the whole attempt.
    public var duration: TimeInterval
    /// The server's address and port as connected, when curl knows it.
    public var remoteAddress: String?
    /// New connections this attempt had to open: 0 means a kept-alive connection was reused.
    public var newConnections: Int

    public init(
        statusCode: Int,
        retryAfter: TimeInterval? = nil,
        bodySummary: String = "",
        body: [UInt8] = [],
        bytesSent: Int64 = 0,
        duration: TimeInterval = 0,
        remoteAddress: String? = nil,
        newConnections: Int = 0
    ) {
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.bodySummary = bodySummary
        self.body = body
        self.bytesSent = bytesSent
        self.duration = duration
        self.remoteAddress = remoteAddress
        self.newConnections = newConnections
    }
}
