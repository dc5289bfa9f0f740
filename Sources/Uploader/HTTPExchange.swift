import Foundation

/// A small request whose body and answer are held in memory: a call to a gallery's own API
/// (WordPress's REST API: a look-up by slug, a post's content), or a probe. Photos never go
/// this way: they are streamed from disk by `UploadRequest`.
public struct HTTPExchange: Sendable, Equatable {
    /// Any method (GET, POST, PUT, HEAD, PROPFIND, …).
    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    public var timeoutSeconds: Double

    public init(method: String = "GET", url: String, headers: [HTTPHeader] = [], body: [UInt8] = [], timeoutSeconds: Double = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutSeconds = timeoutSeconds
    }

    /// A JSON body, with its Content-Type.
    public init(method: String, url: String, headers: [HTTPHeader] = [], json: some Encodable, timeoutSeconds: Double = 30) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(json)).map { [UInt8]($0) } ?? []
        self.init(
            method: method, url: url, headers: headers + [HTTPHeader(name: "Content-Type", value: "application/json")], body: body,
            timeoutSeconds: timeoutSeconds)
    }
}
