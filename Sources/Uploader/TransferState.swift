import CCurl
import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The per-attempt state libcurl's C callbacks reach through their user-data pointer: the open
/// photo file, the start of the response body, the final answer's headers, and the cancellation
/// token. Lives only inside one `perform` call on the worker thread that owns the handle.
final class TransferState {
    /// How much of an upload's response body is kept; the rest is read and discarded.
    static let bodyLimit = 4096

    /// How long a growing file may add nothing before its upload is given up.
    static let growthStallLimit: TimeInterval = 30
    /// How often a wait for a growing file looks at the cancellation token: a flag, which curl's
    /// progress callback looks at on its own clock too (a cancel comes once, at the end of a run).
    static let growthWaitSlice: TimeInterval = 0.25

    let cancellation: UploadCancellation
    let fileDescriptor: Int32
    /// Set for a cut-through upload: the file is still being written.
    let growing: (any GrowingFile)?
    private(set) var bodyHead: [UInt8] = []
    /// How much of the response body `bodyHead` keeps.
    private let keptBody: Int
    /// The final answer's headers (an interim 1xx answer's are dropped when the next begins).
    private(set) var headers: [HTTPHeader] = []
    /// The FTP server's last reply when it was 400 or above (libcurl hands FTP replies to the
    /// header callback): what a refusal said, for the photographer.
    private(set) var refusal: FTPServerReply?
    private(set) var readError: Int32?
    /// Why a growing file's upload was given up: its writer abandoned it or stopped adding to it,
    /// or it could not be read.
    private(set) var growthFailure: String?
    /// Whether the read callback ended the body early (an error, a cancellation, a growing file
    /// given up): then no answer means the gallery has the whole photo.
    private(set) var gaveUpReading = false
    /// Sent in place of the file's first bytes (a stamped header), nil for the file as it is.
    let prefix: BodyPrefix?
    /// Whether libcurl may send the whole body again on its own (`UploadRequest.isRepeatable`).
    var repeatable = true
    /// Whether any of the body was handed to libcurl: a body of known size is read to its size,
    /// never to an empty read, so this, not its end, is what a rewind is refused after.
    private var handedOver = false
    /// Where the next read of the body starts (a growing file's, or any body with a prefix).
    private var position: Int64 = 0
    private let progress: UploadProgress?
    private var lastProgress = Date()

    /// libcurl's read callback: the body from the file, through the state in its user data.
    static let readCallback: curl_read_callback = { buffer, size, count, userData in
        guard let buffer, let userData else { return relay_readfunc_abort }
        let state = Unmanaged<TransferState>.fromOpaque(userData).takeUnretainedValue()
        return state.readBody(into: buffer, capacity: size &* count) ?? relay_readfunc_abort
    }

    /// libcurl's seek callback, to send the body again.
    static let seekCallback: curl_seek_callback = { userData, offset, origin in
        guard let userData else { return relay_seekfunc_fail }
        let state = Unmanaged<TransferState>.fromOpaque(userData).takeUnretainedValue()
        return state.seekBody(offset: Int64(offset), origin: origin) ? relay_seekfunc_ok : relay_seekfunc_cantseek
    }

    init(
        cancellation: UploadCancellation, fileDescriptor: Int32, growing: (any GrowingFile)? = nil,
        prefix: BodyPrefix? = nil, progress: UploadProgress? = nil, keptBody: Int = TransferState.bodyLimit
    ) {
        self.keptBody = keptBody
        self.prefix = prefix
        self.cancellation = cancellation
        self.fileDescriptor = fileDescriptor
        self.growing = growing
        self.progress = progress
    }

    /// From libcurl's progress callback: passes the bytes sent on, at most twice a second.
    func noteProgress(sent: Int64, total: Int64) {
        guard let progress, sent > 0 else { return }
        let now = Date()
        guard now.timeIntervalSince(lastProgress) >= 0.5 else { return }
        lastProgress = now
        progress(sent, total)
    }

    /// The file a 2xx answer's body is written to (`UploadRequest.answerFile`), -1 for none.
    var answerDescriptor: Int32 = -1
    var answerOffset: Int64 = 0
    /// Where the next byte of the answer goes in the file; nil while the answer is no 2xx.
    private var answerPosition: Int64?
    /// Why writing the answer to its file failed (curl then aborts the transfer).
    private(set) var answerWriteError: Int32?

    /// Keeps the answer's start, or writes it to the answer file; false when that write failed.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard answerWriteError == nil else { return false }
        guard var position = answerPosition else {
            let room = keptBody - bodyHead.count
            if room > 0 { bodyHead.append(contentsOf: bytes.prefix(room)) }
            return true
        }
        var done = 0
        while done < bytes.count {
            let count = pwrite(answerDescriptor, bytes.baseAddress! + done, bytes.count - done, off_t(position))
            if count < 0 {
                if errno == EINTR { continue }
                answerWriteError = errno
                return false
            }
            done += count
            position += Int64(count)
        }
        answerPosition = position
        return true
    }

    /// Where an answer with `status` goes: a 206 into the file cut to the asked offset, a 200
    /// into the file emptied, anything else into `bodyHead` (an error's XML).
    private func startAnswer(status: Int) {
        answerPosition = nil
        guard answerDescriptor >= 0, status == 200 || status == 206 else { return }
        let start = status == 206 ? answerOffset : 0
        if ftruncate(answerDescriptor, off_t(start)) == 0 { answerPosition = start } else { answerWriteError = errno }
    }

    /// Called once per header line, of every response in the exchange (interim 1xx answers
    /// too), so a new status line starts over.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        if let reply = FTPServerReply(line: line) {
            // Only the last reply counts: a 550 to an MKD of a folder that exists is followed by
            // a CWD that works, and a connection that drops afterwards is no refusal.
            refusal = reply.code >= 400 ? reply : nil
            return
        }
        if line.hasPrefix("HTTP/") {
            headers = []
            startAnswer(status: line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        headers.append(
            HTTPHeader(
                name: line[..<colon].trimmingCharacters(in: .whitespaces),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Fills `buffer` from the photo file (after the prefix, when there is one); nil means a
    /// read error (curl aborts the transfer).
    func readBody(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        if let prefix, position < Int64(prefix.bytes.count) {
            let count = min(capacity, prefix.bytes.count - Int(position))
            prefix.bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: source.baseAddress! + Int(position), byteCount: count)
            }
            position += Int64(count)
            return count
        }
        let count: Int?
        if let growing {
            count = readGrowing(growing, into: buffer, capacity: capacity)
        } else if let prefix {
            count = readFile(at: position - Int64(prefix.bytes.count) + prefix.replacing, into: buffer, capacity: capacity)
            position += Int64(count ?? 0)
        } else {
            count = readFile(into: buffer, capacity: capacity)
        }
        if count == nil { gaveUpReading = true }
        if (count ?? 0) > 0 { handedOver = true }
        return count
    }

    /// The file's offset for the body's `position`.
    private var fileOffset: Int64 {
        guard let prefix else { return position }
        return position - Int64(prefix.bytes.count) + prefix.replacing
    }

    private func readFile(at offset: Int64, into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        while true {
            let count = pread(fileDescriptor, buffer, capacity, off_t(offset))
            if count >= 0 { return count }
            if errno == EINTR { continue }
            readError = errno
            return nil
        }
    }

    private func readFile(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
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
        if !repeatable && handedOver { return false }
        guard growing != nil || prefix != nil else { return lseek(fileDescriptor, off_t(offset), origin) >= 0 }
        guard origin == SEEK_SET, offset >= 0 else { return false }
        position = offset
        return true
    }

    /// Reads only what the writer vouches for, waiting for more; gives up (nil, and curl aborts,
    /// so the body never completes) when the writer abandons the file or stalls.
    private func readGrowing(_ growing: any GrowingFile, into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        let stallDeadline = Date().addingTimeInterval(Self.growthStallLimit)
        while !cancellation.isCancelled {
            let offset = fileOffset
            switch growing.waitForBytes(beyond: offset, timeout: Self.growthWaitSlice) {
            case .abandoned:
                growthFailure = "the photo's download did not complete"
                return nil
            case .ended:
                return 0
            case .pending:
                if Date() >= stallDeadline {
                    growthFailure = "the photo's download stalled for \(Int(Self.growthStallLimit))s"
                    return nil
                }
            case .available(let readable):
                let count = pread(fileDescriptor, buffer, min(capacity, Int(readable - offset)), off_t(offset))
                if count < 0 {
                    if errno == EINTR { continue }
                    // The spooled file is read again for the retry: this attempt just ends.
                    growthFailure = "the photo being downloaded could not be read (\(String(cString: strerror(errno))))"
                    return nil
                }
                // A read that raced with a rewind may hold bytes that are no longer the photo's.
                guard count > 0, !growing.isAbandoned else {
                    growthFailure = "the photo's download did not complete"
                    return nil
                }
                position += Int64(count)
                return count
            }
        }
        return nil
    }
}
