import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal blocking HTTP/1.0 exchange over a plain POSIX socket (127.0.0.1 style IPv4 hosts).
/// Test support uses it to read the gallery's JSON and to send deliberately malformed requests,
/// so that checking the gallery never depends on the HTTP client under test, on URLSession
/// (FoundationNetworking varies across platforms) or on an external `curl` binary.
public enum RawHTTP {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
    }

    public enum Failure: Error, CustomStringConvertible {
        case socket(String)
        case malformedResponse(String)

        public var description: String {
            switch self {
            case .socket(let detail): return "raw HTTP socket error: \(detail)"
            case .malformedResponse(let detail): return "raw HTTP malformed response: \(detail)"
            }
        }
    }

    /// Sends `request` (a whole HTTP request, bytes as given) and reads the answer until the
    /// server closes the connection. Use HTTP/1.0 or `Connection: close` in the request.
    public static func exchange(host: String, port: Int, request: Data, timeout: TimeInterval = 30) throws -> Response {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure.socket("socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw Failure.socket("not an IPv4 address: \(host)")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure.socket("connect \(host):\(port): \(String(cString: strerror(errno)))") }

        try request.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let sent = Self.systemSend(descriptor, buffer.baseAddress! + offset, buffer.count - offset, 0)
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { throw Failure.socket("send: \(String(cString: strerror(errno)))") }
                offset += sent
            }
        }

        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Failure.socket("recv: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            received.append(contentsOf: chunk[0..<count])
        }
        return try parse(received)
    }

    /// `GET path` and the answer.
    public static func get(host: String, port: Int, path: String) throws -> Response {
        let request = "GET \(path) HTTP/1.0\r\nHost: \(host):\(port)\r\n\r\n"
        return try exchange(host: host, port: port, request: Data(request.utf8))
    }

    /// `method path` with a body of the given type, and the answer.
    public static func send(
        host: String, port: Int, method: String, path: String,
        headers: [String: String] = [:], body: Data
    ) throws -> Response {
        var head = "\(method) \(path) HTTP/1.0\r\nHost: \(host):\(port)\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return try exchange(host: host, port: port, request: Data(head.utf8) + body)
    }

    /// The C `send`, which the `send(...)` helper above would otherwise shadow.
    private static func systemSend(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
        #if canImport(Glibc)
            return Glibc.send(descriptor, buffer, count, flags)
        #else
            return Darwin.send(descriptor, buffer, count, flags)
        #endif
    }

    static func parse(_ data: Data) throws -> Response {
        let separator = Data("\r\n\r\n".utf8)
        guard let range = data.range(of: separator) else {
            throw Failure.malformedResponse("no end of headers in \(data.count) bytes")
        }
        let head = String(decoding: data[data.startIndex..<range.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else {
            throw Failure.malformedResponse("status line '\(statusLine)'")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Data(data[range.upperBound...]))
    }
}
