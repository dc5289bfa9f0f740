import CCurl

/// One libcurl easy handle and its error buffer, for the one worker thread that owns a client.
/// Reusing the handle keeps the connection (and TLS or SSH session) alive between photos;
/// `reset` clears the previous transfer's options but keeps connections and caches.
final class CurlHandle {
    let pointer: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init() throws(UploadTransportError) {
        guard CurlGlobal.initResult == CURLE_OK.rawValue else {
            throw UploadTransportError(category: .other, curlCode: Int(CurlGlobal.initResult), message: "libcurl could not be initialised")
        }
        guard let pointer = curl_easy_init() else {
            throw UploadTransportError(category: .other, message: "libcurl could not create a transfer handle")
        }
        self.pointer = pointer
        let size = Int(relay_curl_error_size)
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
    }

    deinit {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    /// Starts a new transfer: no options left from the last one, curl's detail going to the buffer.
    func reset() -> CURLcode {
        curl_easy_reset(pointer)
        errorBuffer[0] = 0
        return relay_easy_setopt_pointer(pointer, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// What curl wrote about the last failure.
    var errorText: String { String(cString: errorBuffer) }

    /// Aborts the transfer from its progress callback once the cancellation in the
    /// `TransferState` behind `userData` is set (polled about once a second, even while idle),
    /// and passes the bytes sent on to the state's progress listener.
    func abortWhenCancelled(_ userData: UnsafeMutableRawPointer) -> CURLcode {
        var code = relay_easy_setopt_long(pointer, CURLOPT_NOPROGRESS, 0)
        if code == CURLE_OK { code = relay_easy_setopt_pointer(pointer, CURLOPT_XFERINFODATA, userData) }
        if code == CURLE_OK {
            code = relay_easy_setopt_xferinfo_function(pointer) { userData, _, _, uploadTotal, uploaded in
                guard let userData else { return 0 }
                let state = Unmanaged<TransferState>.fromOpaque(userData).takeUnretainedValue()
                state.noteProgress(sent: Int64(uploaded), total: Int64(uploadTotal))
                return state.cancellation.isCancelled ? 1 : 0
            }
        }
        return code
    }
}
