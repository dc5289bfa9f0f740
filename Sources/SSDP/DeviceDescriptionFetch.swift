import CCurl
import Foundation
import SSDPWire

/// Reads a UPnP device description (the URL an SSDP `LOCATION` names) over HTTP with libcurl:
/// plain `http` only, no redirects, bounded in time and size, since anything on the network
/// can announce itself.
public enum DeviceDescriptionFetch {
    /// curl_global_init, once per process (libcurl is built thread-safe; the call is counted,
    /// so the uploader's own call does not clash).
    private static let globalInit: UInt32 = relay_global_init_default().rawValue

    /// GETs `url` and parses the description.
    public static func fetch(_ url: String, timeout: Double) throws(DescriptionFetchError) -> UPnPDeviceDescription {
        let bytes = try get(url, timeout: timeout, limit: UPnPDeviceDescription.maximumLength)
        do {
            return try UPnPDeviceDescription(parsing: bytes)
        } catch {
            throw .unreadable(url: url, reason: error.description)
        }
    }

    static func get(_ url: String, timeout: Double, limit: Int) throws(DescriptionFetchError) -> [UInt8] {
        guard globalInit == CURLE_OK.rawValue, let handle = curl_easy_init() else {
            throw .transport(url: url, reason: "libcurl could not start")
        }
        defer { curl_easy_cleanup(handle) }
        let sink = BoundedSink(limit: limit)
        let userData = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(relay_curl_error_size))
        let milliseconds = max(1, Int(timeout * 1000))
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            _ = relay_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
            _ = relay_easy_setopt_string(handle, CURLOPT_URL, url)
            _ = relay_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http")
            _ = relay_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = relay_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
            _ = relay_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds)
            _ = relay_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            _ = relay_easy_setopt_string(handle, CURLOPT_USERAGENT, "relay")
            _ = relay_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, userData)
            _ = relay_easy_setopt_write_function(handle) { data, size, count, userData in
                let total = size &* count
                guard let data, let userData else { return total }
                let sink = Unmanaged<BoundedSink>.fromOpaque(userData).takeUnretainedValue()
                return sink.append(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
            }
            return curl_easy_perform(handle)
        }
        if sink.overflowed { throw .tooLarge(url: url, limit: limit) }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .transport(url: url, reason: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        }
        var status = 0
        _ = relay_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        guard (200...299).contains(status) else { throw .status(url: url, code: status) }
        return sink.bytes
    }
}

/// The body as it arrives, refused past `limit`.
private final class BoundedSink {
    let limit: Int
    private(set) var bytes: [UInt8] = []
    private(set) var overflowed = false

    init(limit: Int) { self.limit = limit }

    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count + chunk.count <= limit else {
            overflowed = true
            return false
        }
        bytes.append(contentsOf: chunk)
        return true
    }
}

/// Why a device description could not be read; the camera is still listed, without a name.
public enum DescriptionFetchError: Error, Equatable, Sendable, CustomStringConvertible {
    case transport(url: String, reason: String)
    case status(url: String, code: Int)
    case tooLarge(url: String, limit: Int)
    case unreadable(url: String, reason: String)

    public var description: String {
        switch self {
        case .transport(let url, let reason): return "cannot read \(url): \(reason)"
        case .status(let url, let code): return "\(url) answered HTTP \(code)"
        case .tooLarge(let url, let limit): return "\(url) is larger than \(limit) bytes, not a camera's description"
        case .unreadable(let url, let reason): return "\(url): \(reason)"
        }
    }
}
