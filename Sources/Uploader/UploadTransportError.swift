import CCurl

/// An attempt that ended without an HTTP answer: the network, TLS, a stall, a cancellation, or
/// a request that could not be sent at all. Carries curl's own words so a user can act on it.
public struct UploadTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this was; DeliveryPolicy decides retry or not from it.
    public enum Category: String, Sendable, Equatable, CaseIterable {
        /// Refused, unreachable host or network: nothing listening or no route (yet).
        case couldNotConnect
        /// The total timeout or the stall rule (too slow for too long) ended the transfer.
        case timeout
        /// The host name could not be resolved.
        case dns
        /// The connection broke while sending or receiving (reset, empty reply).
        case connectionLost
        /// The TLS handshake or certificate check failed (also what a captive portal causes).
        case tls
        /// Cancelled through an `UploadCancellation` (shutdown grace period over).
        case aborted
        /// The request itself is unusable (bad URL or scheme, bad method, CR/LF in a header).
        case invalidRequest
        /// The photo file could not be opened or read.
        case fileUnreadable
        /// A cut-through upload was given up because the photo's download did not complete;
        /// the photo is sent from the spool once it is downloaded.
        case sourceIncomplete
        /// Any other curl failure.
        case other
    }

    public var category: Category
    /// curl's error number (CURLcode), or 0 when curl was never asked.
    public var curlCode: Int
    /// curl's detailed message (its error buffer), or our own for non-curl failures.
    public var message: String

    public init(category: Category, curlCode: Int = 0, message: String) {
        self.category = category
        self.curlCode = curlCode
        self.message = message
    }

    /// An error from a curl result code and the text curl left in its error buffer.
    public init(curlCode: CURLcode, errorBuffer: String) {
        let detail = errorBuffer.isEmpty ? String(cString: curl_easy_strerror(curlCode)) : errorBuffer
        self.init(category: Self.category(of: curlCode), curlCode: Int(curlCode.rawValue), message: detail)
    }

    /// Sorts curl's many error codes into the few kinds the delivery policy and a user care about.
    public static func category(of code: CURLcode) -> Category {
        switch code {
        case CURLE_COULDNT_CONNECT:
            return .couldNotConnect
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dns
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
            CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_FAIL_REWIND:
            return .connectionLost
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
            CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED:
            return .tls
        case CURLE_ABORTED_BY_CALLBACK:
            return .aborted
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidRequest
        case CURLE_READ_ERROR:
            return .fileUnreadable
        default:
            return .other
        }
    }

    /// A sentence for the photographer: what went wrong, then curl's detail.
    public var description: String {
        let what: String
        switch category {
        case .couldNotConnect: what = "could not connect to the gallery (nothing listening, or no route to it)"
        case .timeout: what = "the upload timed out or stalled"
        case .dns: what = "the gallery's host name could not be resolved (no network or wrong URL)"
        case .connectionLost: what = "the connection to the gallery broke during the upload"
        case .tls:
            what = "the secure (TLS) connection to the gallery failed; check the URL and the network (a hotspot login page causes this)"
        case .aborted: what = "the upload was cancelled"
        case .invalidRequest: what = "the upload request is invalid; fix the request config"
        case .fileUnreadable: what = "the photo file could not be read"
        case .sourceIncomplete: what = "the upload started during the download was given up"
        case .other: what = "the upload failed"
        }
        let code = curlCode == 0 ? "" : " (curl error \(curlCode))"
        return "\(what): \(message)\(code)"
    }
}
