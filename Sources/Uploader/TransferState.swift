import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The per-attempt state libcurl's C callbacks reach through their user-data pointer: the open
/// photo file, the start of the response body, the final `Retry-After`, and the cancellation
/// token. Lives only inside one `perform` call on the worker thread that owns the handle.
final class TransferState {
    /// How much of the response body is kept; the rest is read and discarded.
    static let bodyLimit = 4096

    let cancellation: UploadCancellation
    let fileDescriptor: Int32
    private(set) var bodyHead: [UInt8] = []
    private(set) var retryAfter: String?
    private(set) var readError: Int32?

    init(cancellation: UploadCancellation, fileDescriptor: Int32) {
        self.cancellation = cancellation
        self.fileDescriptor = fileDescriptor
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) {
        let room = Self.bodyLimit - bodyHead.count
        if room > 0 { bodyHead.append(contentsOf: bytes.prefix(room)) }
    }

    /// Called once per header line, of every response in the exchange (interim 1xx answers
    /// too), so a new status line starts over.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            retryAfter = nil
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard name.lowercased() == "retry-after" else { return }
        retryAfter = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Fills `buffer` from the photo file; nil means a read error (curl aborts the transfer).
    func readBody(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        while true {
            let count = read(fileDescriptor, buffer, capacity)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            readError = errno
            return nil
        }
    }

    /// Rewinds the file when curl has to send the body again (a kept-alive connection that
    /// turned out dead, or an auth round trip).
    func seekBody(offset: Int64, origin: Int32) -> Bool {
        lseek(fileDescriptor, off_t(offset), origin) >= 0
    }
}
