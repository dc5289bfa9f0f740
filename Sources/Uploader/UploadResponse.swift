import Foundation

/// What the server answered to one attempt (any status: classifying it is DeliveryPolicy's job).
public struct UploadResponse: Sendable, Equatable {
    /// The final HTTP status (interim 1xx answers are skipped).
    public var statusCode: Int
    /// `Retry-After` of the final answer in seconds from when it arrived, if present and valid.
    public var retryAfter: TimeInterval?
    /// The start of the response body as printable text, for the history and error messages.
    public var bodySummary: String
    /// The start of the response body as it came (4 KiB, or what the request's `keptAnswer` asks
    /// for), for an answer relay reads (a PROPFIND's, WordPress's attachment).
    public var body: [UInt8]
    /// The final answer's headers, as sent.
    public var headers: [HTTPHeader]
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
        headers: [HTTPHeader] = [],
        bytesSent: Int64 = 0,
        duration: TimeInterval = 0,
        remoteAddress: String? = nil,
        newConnections: Int = 0
    ) {
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.bodySummary = bodySummary
        self.body = body
        self.headers = headers
        self.bytesSent = bytesSent
        self.duration = duration
        self.remoteAddress = remoteAddress
        self.newConnections = newConnections
    }
}

extension UploadResponse {
    /// The value of the header `name` (in any case), if the answer has it.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the headers named `name`, in order (`Link` comes in several).
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// A 2xx answer.
    public var isSuccess: Bool { (200...299).contains(statusCode) }
}
