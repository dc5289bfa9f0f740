import CCurl
import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends upload attempts through one reused libcurl easy handle.
///
/// Owned by exactly one worker thread (it is deliberately not Sendable): reusing the handle
/// keeps the connection to the gallery alive between photos, which on a venue network saves a
/// TCP and TLS handshake per photo. `curl_easy_reset` between attempts clears the options but
/// keeps the connection, DNS and TLS session caches.
///
/// TLS peer and host verification stay at curl's secure defaults. Redirects are not followed
/// (a 3xx is reported, and DeliveryPolicy treats it as permanent).
public final class HTTPUploadClient {
    /// Give this to another thread to abort the transfer in flight (and all later ones).
    public let cancellation: UploadCancellation
    let curl: CurlHandle
    var handle: UnsafeMutableRawPointer { curl.pointer }

    public init(cancellation: UploadCancellation = UploadCancellation()) throws(UploadTransportError) {
        curl = try CurlHandle()
        self.cancellation = cancellation
    }

    /// Performs one attempt, blocking the calling thread until an answer, an error, or a
    /// cancellation. Any HTTP status is a `.success`; classifying it is DeliveryPolicy's job.
    /// With `growing`, the file is still being written (cut-through): its final size is sent as
    /// the body's length (chunked, without one, when the size is not known yet), and the body is
    /// read as the writer vouches for it; if the writer gives up, the transfer is aborted with the
    /// body incomplete (category `.sourceIncomplete`).
    public func perform(
        _ request: UploadRequest, growing: (any GrowingFile)? = nil, progress: UploadProgress? = nil
    ) -> Result<UploadResponse, UploadTransportError> {
        if cancellation.isCancelled {
            return .failure(UploadTransportError(category: .aborted, message: "cancelled before the upload started"))
        }
        let plan: UploadPlan
        switch UploadPlan.make(request) {
        case .success(let made): plan = made
        case .failure(let error): return .failure(error)
        }

        var fileDescriptor: Int32 = -1
        var fileSize: Int64? = 0
        var ownsDescriptor = false
        if plan.body.readsFile {
            if let growing {
                (fileDescriptor, fileSize) = (growing.fileDescriptor, growing.finalSize)
            } else {
                switch Self.openFile(request.filePath) {
                case .success(let opened): (fileDescriptor, fileSize) = opened
                case .failure(let error): return .failure(error)
                }
                ownsDescriptor = true
            }
        }
        defer { if ownsDescriptor { close(fileDescriptor) } }
        var answerDescriptor: Int32 = -1
        if let answerFile = request.answerFile {
            answerDescriptor = open(answerFile.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            guard answerDescriptor >= 0 else {
                return .failure(
                    UploadTransportError(category: .other, message: "\(answerFile.path): \(String(cString: strerror(errno)))"))
            }
        }
        defer { if answerDescriptor >= 0 { close(answerDescriptor) } }
        if let prefix = request.prefix, plan.body.readsFile { fileSize = fileSize.map(prefix.bodySize) }

        // libcurl counts the whole body (a multipart form's parts too): the photo's share is shown.
        var photoProgress: UploadProgress?
        if let progress {
            let size = fileSize
            let prefix = request.prefix
            photoProgress = { sent, _ in
                let total = size ?? growing?.finalSize.map { prefix?.bodySize(fileSize: $0) ?? $0 } ?? 0
                progress(total > 0 ? min(sent, total) : sent, total)
            }
        }
        let state = TransferState(
            cancellation: cancellation, fileDescriptor: fileDescriptor, growing: growing, prefix: request.prefix,
            progress: photoProgress, keptBody: max(TransferState.bodyLimit, request.keptAnswer))
        state.repeatable = request.isRepeatable
        state.answerDescriptor = answerDescriptor
        state.answerOffset = request.answerFile?.offset ?? 0
        return withExtendedLifetime(state) {
            transfer(plan, request: request, fileSize: fileSize, state: state)
        }
    }

    private func transfer(
        _ plan: UploadPlan, request: UploadRequest, fileSize: Int64?, state: TransferState
    ) -> Result<UploadResponse, UploadTransportError> {
        let userData = Unmanaged.passUnretained(state).toOpaque()

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        // A body without a length asks first (Expect: 100-continue), so that a server that
        // refuses one (411) says so before the body goes, not by cutting the connection.
        let asksFirst = fileSize == nil && plan.body.readsFile
        for line in plan.headerLines where !(asksFirst && line == "Expect:") {
            guard let appended = curl_slist_append(headerList, line) else {
                return .failure(UploadTransportError(category: .other, message: "out of memory building headers"))
            }
            headerList = appended
        }

        var mime: OpaquePointer?
        defer { curl_mime_free(mime) }

        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }

        set(start(url: plan.url, headers: headerList, connectTimeout: request.connectTimeoutSeconds, userData: userData))
        if asksFirst {
            set(relay_easy_setopt_long(handle, CURLOPT_EXPECT_100_TIMEOUT_MS, 300))
        }
        if let timeout = request.timeoutSeconds {
            set(relay_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)))
        }
        if request.lowSpeedLimit > 0 && request.lowSpeedTime > 0 {
            set(relay_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, request.lowSpeedLimit))
            set(relay_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, request.lowSpeedTime))
        }
        if let signing = request.signing {
            // libcurl computes the SigV4 signature over the method, path, query and headers; the
            // body is declared UNSIGNED-PAYLOAD for uploads, which is why S3 requests carry
            // a checksum header of their own.
            set(relay_easy_setopt_string(handle, CURLOPT_AWS_SIGV4, signing.curlProvider))
            set(relay_easy_setopt_string(handle, CURLOPT_USERNAME, signing.accessKey))
            set(relay_easy_setopt_string(handle, CURLOPT_PASSWORD, signing.secretKey))
        }
        if let rate = request.maxBytesPerSecond, rate > 0 {
            set(relay_easy_setopt_off_t(handle, CURLOPT_MAX_SEND_SPEED_LARGE, curl_off_t(rate)))
        }

        switch plan.body {
        case .none:
            if plan.method == "GET" {
                set(relay_easy_setopt_long(handle, CURLOPT_HTTPGET, 1))
            } else if plan.method == "HEAD" {
                // Without NOBODY libcurl would wait for the body a HEAD's Content-Length announces.
                set(relay_easy_setopt_long(handle, CURLOPT_NOBODY, 1))
            } else {
                set(relay_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, plan.method))
            }
        case .raw:
            set(relay_easy_setopt_long(handle, CURLOPT_UPLOAD, 1))
            // Without a size libcurl sends the body chunked.
            set(relay_easy_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(fileSize ?? -1)))
            set(relay_easy_setopt_pointer(handle, CURLOPT_READDATA, userData))
            set(relay_easy_setopt_read_function(handle, TransferState.readCallback))
            set(relay_easy_setopt_pointer(handle, CURLOPT_SEEKDATA, userData))
            set(relay_easy_setopt_seek_function(handle, TransferState.seekCallback))
            if plan.method != "PUT" {
                set(relay_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, plan.method))
            }
        case .inline(let bytes):
            // libcurl copies the body, so it need not outlive this call.
            set(relay_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
            set(
                (bytes.isEmpty ? [0] : bytes).withUnsafeBytes {
                    relay_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                })
            if plan.method != "POST" {
                set(relay_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, plan.method))
            }
        case .multipart(let fields, let fileField, let fileName):
            guard let made = curl_mime_init(handle) else {
                return .failure(UploadTransportError(category: .other, message: "out of memory building the form"))
            }
            mime = made
            for field in fields {
                let part = curl_mime_addpart(made)
                set(curl_mime_name(part, field.name))
                let length = field.value.utf8.count
                set(field.value.withCString { curl_mime_data(part, $0, length) })
            }
            let filePart = curl_mime_addpart(made)
            set(curl_mime_name(filePart, fileField))
            set(curl_mime_filename(filePart, fileName))
            set(curl_mime_type(filePart, request.contentType))
            set(
                curl_mime_data_cb(
                    filePart, curl_off_t(fileSize ?? -1), TransferState.readCallback, TransferState.seekCallback, nil, userData))
            set(relay_easy_setopt_mime(handle, CURLOPT_MIMEPOST, made))
            if plan.method != "POST" {
                set(relay_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, plan.method))
            }
        }

        if code == CURLE_OK {
            code = curl_easy_perform(handle)
        }
        guard code == CURLE_OK else {
            // A 2xx status line followed by a reset still means the gallery has the photo: report
            // the answer, so it is not sent again. Not when the body was cut short on our side.
            var status = 0
            if !state.gaveUpReading, relay_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK,
                (200...299).contains(status)
            {
                return .success(response(state: state))
            }
            return .failure(error(for: code, state: state, path: request.filePath))
        }
        return .success(response(state: state))
    }

    /// The options every HTTP request of this client has: a fresh transfer to `url` over http or
    /// https, the header lines, the timeouts, the cancellation, and the answer collected into the
    /// `TransferState` behind `userData`.
    func start(
        url: String, headers: UnsafeMutablePointer<curl_slist>?, connectTimeout: Double, userData: UnsafeMutableRawPointer
    ) -> CURLcode {
        var code = curl.reset()
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(relay_easy_setopt_string(handle, CURLOPT_URL, url))
        set(relay_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(relay_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(relay_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1))
        set(relay_easy_setopt_string(handle, CURLOPT_USERAGENT, "relay"))
        set(relay_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headers))
        set(relay_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout)))
        set(curl.abortWhenCancelled(userData))
        set(relay_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, userData))
        set(
            relay_easy_setopt_write_function(handle) { data, size, count, userData in
                let total = size &* count
                guard let data, let userData else { return total }
                let state = Unmanaged<TransferState>.fromOpaque(userData).takeUnretainedValue()
                // A short count makes curl abort the transfer (CURLE_WRITE_ERROR).
                return state.receiveBody(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
            })
        set(relay_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, userData))
        set(
            relay_easy_setopt_header_function(handle) { data, size, count, userData in
                let total = size &* count
                guard let data, let userData else { return total }
                let state = Unmanaged<TransferState>.fromOpaque(userData).takeUnretainedValue()
                state.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: total))
                return total
            })
        return code
    }

    func error(for code: CURLcode, state: TransferState, path: String) -> UploadTransportError {
        if let growthFailure = state.growthFailure {
            return UploadTransportError(category: .sourceIncomplete, curlCode: Int(code.rawValue), message: growthFailure)
        }
        if let writeError = state.answerWriteError {
            return UploadTransportError(
                category: .other, curlCode: Int(code.rawValue), message: "writing the answer: \(String(cString: strerror(writeError)))")
        }
        if let readError = state.readError {
            return UploadTransportError(
                category: .fileUnreadable, curlCode: Int(code.rawValue),
                message: "\(path): \(String(cString: strerror(readError)))")
        }
        if code == CURLE_ABORTED_BY_CALLBACK && cancellation.isCancelled {
            return UploadTransportError(
                category: .aborted, curlCode: Int(code.rawValue),
                message: "cancelled while the upload was in progress")
        }
        return UploadTransportError(curlCode: code, errorBuffer: curl.errorText)
    }

    func response(state: TransferState) -> UploadResponse {
        var status = 0
        _ = relay_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var uploaded: curl_off_t = 0
        _ = relay_easy_getinfo_off_t(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        var microseconds: curl_off_t = 0
        _ = relay_easy_getinfo_off_t(handle, CURLINFO_TOTAL_TIME_T, &microseconds)
        var connects = 0
        _ = relay_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        var address: UnsafeMutablePointer<CChar>?
        _ = relay_easy_getinfo_string(handle, CURLINFO_PRIMARY_IP, &address)
        var port = 0
        _ = relay_easy_getinfo_long(handle, CURLINFO_PRIMARY_PORT, &port)
        let remote = address.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : "\($0):\(port)" }
        var answer = UploadResponse(
            statusCode: status,
            bodySummary: ResponseSummary.make(Array(state.bodyHead.prefix(TransferState.bodyLimit))),
            body: state.bodyHead,
            headers: state.headers,
            bytesSent: Int64(uploaded),
            duration: TimeInterval(microseconds) / 1_000_000,
            remoteAddress: remote,
            newConnections: connects
        )
        answer.retryAfter = answer.header("Retry-After").flatMap { RetryAfter.parse($0) }
        return answer
    }

    /// Opens the photo before any byte is sent, so a missing file is reported as such and not
    /// as a network failure halfway through.
    static func openFile(_ path: String) -> Result<(Int32, Int64), UploadTransportError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            // Only a missing file is permanent; running out of descriptors or an I/O hiccup passes.
            let code = errno
            return .failure(
                UploadTransportError(
                    category: code == ENOENT || code == EACCES ? .fileUnreadable : .other,
                    message: "\(path): \(String(cString: strerror(code)))"))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return .failure(UploadTransportError(category: .fileUnreadable, message: "\(path): not a regular file"))
        }
        return .success((descriptor, Int64(info.st_size)))
    }

    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds * 1000, Double(Int32.max)))
    }

}
