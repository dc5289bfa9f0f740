import CCurl
import Foundation

extension HTTPUploadClient {
    /// How much of an exchange's answer is kept (a post's content with its gallery, a page of
    /// look-ups); a longer answer is cut, which its reader sees as unreadable.
    public static let exchangeBodyLimit = 8 << 20

    /// One exchange on this client's connection, blocking the calling thread: the answer with its
    /// headers and body (up to `exchangeBodyLimit`). Any HTTP status is a `.success`; what it
    /// means is the caller's.
    public func exchange(_ exchange: HTTPExchange) -> Result<UploadResponse, UploadTransportError> {
        if cancellation.isCancelled {
            return .failure(UploadTransportError(category: .aborted, message: "cancelled before the request started"))
        }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for header in exchange.headers + [HTTPHeader(name: "Expect", value: "")] {
            guard UploadPlan.isToken(header.name), UploadPlan.isFieldValue(header.value) else {
                return .failure(UploadTransportError(category: .invalidRequest, message: "header '\(header.name)' cannot be sent"))
            }
            headerList = curl_slist_append(headerList, header.value.isEmpty ? "\(header.name):" : "\(header.name): \(header.value)")
        }
        let state = TransferState(cancellation: cancellation, fileDescriptor: -1, keptBody: Self.exchangeBodyLimit)
        return withExtendedLifetime(state) {
            let userData = Unmanaged.passUnretained(state).toOpaque()
            var code = start(url: exchange.url, headers: headerList, connectTimeout: 10, userData: userData)
            func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
            set(relay_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(exchange.timeoutSeconds)))
            switch exchange.method {
            case "GET" where exchange.body.isEmpty:
                set(relay_easy_setopt_long(handle, CURLOPT_HTTPGET, 1))
            case "HEAD":
                set(relay_easy_setopt_long(handle, CURLOPT_NOBODY, 1))
            default:
                // libcurl copies the body (size first), so a zero-length one is sent as such.
                let bytes = exchange.body + [0]
                set(relay_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(exchange.body.count)))
                set(
                    bytes.withUnsafeBytes {
                        relay_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                    })
                if exchange.method != "POST" { set(relay_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, exchange.method)) }
            }
            if code == CURLE_OK { code = curl_easy_perform(handle) }
            guard code == CURLE_OK else { return .failure(error(for: code, state: state, path: exchange.url)) }
            return .success(response(state: state))
        }
    }
}
