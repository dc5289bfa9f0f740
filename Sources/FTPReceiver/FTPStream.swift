import COpenSSL
import Foundation
import SocketIO

/// A control or data connection, in the clear or, after ``startTLS(_:timeout:)``, through
/// OpenSSL (explicit FTPS, RFC 4217: the client asks with AUTH TLS, then PROT P for data).
///
/// `@unchecked Sendable`: owned by one session thread; ``shutdown()`` alone may come from
/// another thread (it only shuts the socket down).
final class FTPStream: @unchecked Sendable {
    let tcp: TCPConnection
    private var ssl: OpaquePointer?

    init(_ tcp: TCPConnection) {
        self.tcp = tcp
    }

    deinit { close() }

    var peer: String { tcp.peer }
    var isSecure: Bool { ssl != nil }

    /// Why TLS failed on this connection.
    struct TLSFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The server side of the TLS handshake.
    func startTLS(_ context: TLSContext, timeout: TimeInterval) throws {
        guard let ssl = SSL_new(context.context) else { throw TLSFailure(description: TLSContext.lastError()) }
        self.ssl = ssl
        guard SSL_set_fd(ssl, try tcp.descriptorForTLS()) == 1 else { throw TLSFailure(description: TLSContext.lastError()) }
        let deadline = Date().addingTimeInterval(timeout)
        try retrying(deadline: deadline, operation: "TLS handshake") { SSL_accept(ssl) }
    }

    /// Whatever is available (at most `maxCount` bytes), waiting up to `timeout` for the first;
    /// empty at the end of the stream.
    func readSome(maxCount: Int, timeout: TimeInterval) throws -> [UInt8] {
        guard let ssl else { return try tcp.readSome(maxCount: maxCount, timeout: timeout) }
        var buffer = [UInt8](repeating: 0, count: min(max(1, maxCount), 1 << 20))
        var count = 0
        let deadline = Date().addingTimeInterval(timeout)
        do {
            try retrying(deadline: deadline, operation: "read") {
                buffer.withUnsafeMutableBytes { SSL_read_ex(ssl, $0.baseAddress, $0.count, &count) }
            }
        } catch is EndOfStream {
            return []
        }
        return Array(buffer.prefix(count))
    }

    func write(_ bytes: [UInt8], timeout: TimeInterval) throws {
        guard let ssl else { return try tcp.write(bytes, timeout: timeout) }
        let deadline = Date().addingTimeInterval(timeout)
        var offset = 0
        while offset < bytes.count {
            var written = 0
            try retrying(deadline: deadline, operation: "write") {
                bytes.withUnsafeBytes { SSL_write_ex(ssl, $0.baseAddress! + offset, $0.count - offset, &written) }
            }
            offset += written
        }
    }

    /// Bytes TLS has decrypted but not handed out yet (poll cannot see them).
    var hasBufferedBytes: Bool { ssl.map { SSL_pending($0) > 0 } ?? false }

    /// Waits until one of `streams` has something to read; one flag each.
    static func waitReadable(_ streams: [FTPStream], timeout: TimeInterval) throws -> [Bool] {
        let buffered = streams.map(\.hasBufferedBytes)
        if buffered.contains(true) { return buffered }
        return try TCPConnection.waitReadable(streams.map(\.tcp), timeout: timeout)
    }

    func localAddress() throws -> String { try tcp.localAddress() }

    /// Ends blocked reads from another thread.
    func shutdown() { tcp.shutdown() }

    /// Sends TLS's close_notify (so the client knows the data ended here, not cut off) and closes.
    func close() {
        if let ssl {
            if !tcp.isClosed { SSL_shutdown(ssl) }
            SSL_free(ssl)
            self.ssl = nil
        }
        tcp.close()
    }

    private struct EndOfStream: Error {}

    /// Runs an OpenSSL call until it succeeds, waiting on the socket when it wants to read or
    /// write (the socket is non-blocking).
    private func retrying(deadline: Date, operation: String, _ call: () -> Int32) throws {
        guard let ssl else { return }
        while true {
            ERR_clear_error()
            let result = call()
            if result > 0 { return }
            let reason = SSL_get_error(ssl, result)
            let left = deadline.timeIntervalSinceNow
            switch reason {
            case SSL_ERROR_WANT_READ:
                guard left > 0, try tcp.waitReadable(timeout: left) else {
                    throw SocketError.timedOut(operation: "TLS \(operation) with", peer: peer, seconds: 0)
                }
            case SSL_ERROR_WANT_WRITE:
                guard left > 0, try tcp.waitWritable(timeout: left) else {
                    throw SocketError.timedOut(operation: "TLS \(operation) with", peer: peer, seconds: 0)
                }
            case SSL_ERROR_ZERO_RETURN:
                // close_notify, or the end of the stream without it (SSL_OP_IGNORE_UNEXPECTED_EOF:
                // a client may skip it; a JPEG cut short is still caught by its structure, see JPEGStructure).
                throw EndOfStream()
            case SSL_ERROR_SYSCALL:
                throw SocketError.system(operation: "TLS \(operation) with", peer: peer, errno: errno)
            default:
                throw TLSFailure(description: "TLS \(operation) with \(peer) failed: \(TLSContext.lastError())")
            }
        }
    }
}
