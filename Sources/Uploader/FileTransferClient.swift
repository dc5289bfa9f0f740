import CCurl
import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One FTP, FTPS or SFTP upload, fully resolved (secrets expanded), for `FileTransferClient`.
public struct FileTransferRequest: Sendable, Equatable {
    /// `ftp://` or `sftp://` URL of the file to write.
    public var url: String
    /// FTP: require TLS on the control and data connections (explicit FTPS).
    public var requireTLS: Bool
    public var username: String?
    /// The login password, or with `sshKey` the key's passphrase.
    public var password: String?
    public var caCertificate: String?
    public var sshKey: String?
    public var knownHosts: String?
    /// Commands sent after the upload (the rename into place); a failing one fails the attempt.
    public var afterUpload: [String]
    public var filePath: String
    public var timeoutSeconds: Double?
    public var connectTimeoutSeconds: Double
    public var maxBytesPerSecond: Int?
    /// Sent in place of the file's first bytes (a stamped header).
    public var prefix: BodyPrefix?

    public init(
        url: String, requireTLS: Bool = false, username: String? = nil, password: String? = nil, caCertificate: String? = nil,
        sshKey: String? = nil, knownHosts: String? = nil, afterUpload: [String] = [], filePath: String,
        timeoutSeconds: Double? = nil, connectTimeoutSeconds: Double = 10, maxBytesPerSecond: Int? = nil
    ) {
        self.url = url
        self.requireTLS = requireTLS
        self.username = username
        self.password = password
        self.caCertificate = caCertificate
        self.sshKey = sshKey
        self.knownHosts = knownHosts
        self.afterUpload = afterUpload
        self.filePath = filePath
        self.timeoutSeconds = timeoutSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.maxBytesPerSecond = maxBytesPerSecond
    }
}

/// What a completed FTP or SFTP upload reports.
public struct FileTransferResponse: Sendable, Equatable {
    /// The server's last reply code (FTP), 0 for SFTP.
    public var replyCode: Int
    public var bytesSent: Int64
    public var duration: TimeInterval
}

/// Why an SFTP server's host key was refused, and its fingerprint (`SHA256:…`, as `ssh-keygen -l`
/// prints it), for the message that tells the photographer what to check.
public struct HostKeyRefusal: Sendable, Equatable {
    /// True: known_hosts has another key for this host (a different server, or one in between).
    public var mismatch: Bool
    public var fingerprint: String
}

/// Uploads files over FTP, FTPS and SFTP through one reused libcurl handle (one worker thread
/// owns it, like `HTTPUploadClient`, so the control connection or SSH session stays open).
/// Folders are created as needed. SFTP host keys are checked against a known_hosts file and an
/// unknown or changed key is refused, never accepted.
public final class FileTransferClient {
    public let cancellation: UploadCancellation
    private let curl: CurlHandle
    private var handle: UnsafeMutableRawPointer { curl.pointer }

    public init(cancellation: UploadCancellation = UploadCancellation()) throws(UploadTransportError) {
        curl = try CurlHandle()
        self.cancellation = cancellation
    }

    /// Performs one upload, blocking until it is done, failed or cancelled. A refused SFTP host
    /// key comes back as the error's `hostKey`.
    public func upload(_ request: FileTransferRequest, progress: UploadProgress? = nil) -> Result<FileTransferResponse, FileTransferError> {
        if cancellation.isCancelled {
            return .failure(FileTransferError(UploadTransportError(category: .aborted, message: "cancelled before the upload started")))
        }
        let opened: (Int32, Int64)
        switch HTTPUploadClient.openFile(request.filePath) {
        case .success(let file): opened = file
        case .failure(let error): return .failure(FileTransferError(error))
        }
        defer { close(opened.0) }
        let state = TransferState(cancellation: cancellation, fileDescriptor: opened.0, prefix: request.prefix, progress: progress)
        let hostKey = HostKeyCheck()
        let size = request.prefix?.bodySize(fileSize: opened.1) ?? opened.1
        return withExtendedLifetime((state, hostKey)) { transfer(request, fileSize: size, state: state, hostKey: hostKey) }
    }

    /// The size of the file at `request.url` (libcurl without a body: SIZE over FTP, a stat over
    /// SFTP), nil when there is no file of that name (or no folder) or the server does not say.
    public func size(_ request: FileTransferRequest) -> Result<Int64?, FileTransferError> {
        if cancellation.isCancelled {
            return .failure(FileTransferError(UploadTransportError(category: .aborted, message: "cancelled before asking")))
        }
        let state = TransferState(cancellation: cancellation, fileDescriptor: -1)
        let hostKey = HostKeyCheck()
        return withExtendedLifetime((state, hostKey)) {
            var code = connect(request, state: state, hostKey: hostKey)
            if code == CURLE_OK { code = relay_easy_setopt_long(handle, CURLOPT_NOBODY, 1) }
            // SIZE of the whole path, no CWD: a folder not made yet is then a file not found.
            if code == CURLE_OK { code = relay_easy_setopt_long(handle, CURLOPT_FTP_FILEMETHOD, Int(CURLFTPMETHOD_NOCWD.rawValue)) }
            if code == CURLE_OK { code = curl_easy_perform(handle) }
            if code == CURLE_REMOTE_FILE_NOT_FOUND { return .success(nil) }
            guard code == CURLE_OK else { return .failure(failure(code, request: request, state: state, hostKey: hostKey)) }
            var length: curl_off_t = -1
            _ = relay_easy_getinfo_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
            return .success(length >= 0 ? Int64(length) : nil)
        }
    }

    private func transfer(
        _ request: FileTransferRequest, fileSize: Int64, state: TransferState, hostKey: HostKeyCheck
    ) -> Result<FileTransferResponse, FileTransferError> {
        var commands: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(commands) }
        for command in request.afterUpload {
            commands = curl_slist_append(commands, command)
        }
        var code = connect(request, state: state, hostKey: hostKey)
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        let userData = Unmanaged.passUnretained(state).toOpaque()

        set(relay_easy_setopt_long(handle, CURLOPT_UPLOAD, 1))
        set(relay_easy_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(fileSize)))
        set(relay_easy_setopt_long(handle, CURLOPT_FTP_CREATE_MISSING_DIRS, Int(CURLFTP_CREATE_DIR_RETRY.rawValue)))
        set(relay_easy_setopt_pointer(handle, CURLOPT_READDATA, userData))
        set(relay_easy_setopt_read_function(handle, TransferState.readCallback))
        set(relay_easy_setopt_pointer(handle, CURLOPT_SEEKDATA, userData))
        set(relay_easy_setopt_seek_function(handle, TransferState.seekCallback))
        if let rate = request.maxBytesPerSecond, rate > 0 {
            set(relay_easy_setopt_off_t(handle, CURLOPT_MAX_SEND_SPEED_LARGE, curl_off_t(rate)))
        }
        if commands != nil { set(relay_easy_setopt_slist(handle, CURLOPT_POSTQUOTE, commands)) }

        if code == CURLE_OK { code = curl_easy_perform(handle) }
        guard code == CURLE_OK else { return .failure(failure(code, request: request, state: state, hostKey: hostKey)) }
        var reply = 0
        _ = relay_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &reply)
        var uploaded: curl_off_t = 0
        _ = relay_easy_getinfo_off_t(handle, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        var microseconds: curl_off_t = 0
        _ = relay_easy_getinfo_off_t(handle, CURLINFO_TOTAL_TIME_T, &microseconds)
        return .success(
            FileTransferResponse(replyCode: reply, bytesSent: Int64(uploaded), duration: TimeInterval(microseconds) / 1_000_000))
    }

    /// A fresh transfer on the kept connection: the server, the login, TLS or the host key
    /// check, the time limits, cancellation, and the FTP replies into `state`.
    private func connect(_ request: FileTransferRequest, state: TransferState, hostKey: HostKeyCheck) -> CURLcode {
        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        let userData = Unmanaged.passUnretained(state).toOpaque()

        set(curl.reset())
        set(relay_easy_setopt_string(handle, CURLOPT_URL, request.url))
        set(relay_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "ftp,sftp"))
        set(relay_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(relay_easy_setopt_long(handle, CURLOPT_TCP_KEEPALIVE, 1))
        set(relay_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, HTTPUploadClient.milliseconds(request.connectTimeoutSeconds)))
        if let timeout = request.timeoutSeconds {
            set(relay_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, HTTPUploadClient.milliseconds(timeout)))
        }
        // The same stall rule as HTTP: under 1 byte/s for 30 s is a dead link.
        set(relay_easy_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1))
        set(relay_easy_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, 30))
        set(curl.abortWhenCancelled(userData))
        set(relay_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, userData))
        set(
            relay_easy_setopt_header_function(handle) { data, size, count, userData in
                let total = size &* count
                guard let data, let userData else { return total }
                Unmanaged<TransferState>.fromOpaque(userData).takeUnretainedValue()
                    .receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: total))
                return total
            })
        if let username = request.username { set(relay_easy_setopt_string(handle, CURLOPT_USERNAME, username)) }
        if request.requireTLS {
            set(relay_easy_setopt_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)))
            if let ca = request.caCertificate { set(relay_easy_setopt_string(handle, CURLOPT_CAINFO, ca)) }
        }
        if let sshKey = request.sshKey {
            set(relay_easy_setopt_string(handle, CURLOPT_SSH_PRIVATE_KEYFILE, sshKey))
            set(relay_easy_setopt_long(handle, CURLOPT_SSH_AUTH_TYPES, Int(CURLSSH_AUTH_PUBLICKEY)))
            if let passphrase = request.password { set(relay_easy_setopt_string(handle, CURLOPT_KEYPASSWD, passphrase)) }
        } else if let password = request.password {
            set(relay_easy_setopt_string(handle, CURLOPT_PASSWORD, password))
        }
        if let knownHosts = request.knownHosts {
            set(relay_easy_setopt_string(handle, CURLOPT_SSH_KNOWNHOSTS, knownHosts))
            set(relay_easy_setopt_pointer(handle, CURLOPT_SSH_KEYDATA, Unmanaged.passUnretained(hostKey).toOpaque()))
            set(relay_easy_setopt_sshkey_function(handle, HostKeyCheck.callback))
        }
        return code
    }

    /// Why a transfer failed: the file that could not be read, a cancellation, or curl's error
    /// with the server's last reply, a refused host key and the FTP server's refusal.
    private func failure(_ code: CURLcode, request: FileTransferRequest, state: TransferState, hostKey: HostKeyCheck) -> FileTransferError {
        if let readError = state.readError {
            return FileTransferError(
                UploadTransportError(
                    category: .fileUnreadable, curlCode: Int(code.rawValue),
                    message: "\(request.filePath): \(String(cString: strerror(readError)))"))
        }
        if code == CURLE_ABORTED_BY_CALLBACK && cancellation.isCancelled {
            return FileTransferError(
                UploadTransportError(
                    category: .aborted, curlCode: Int(code.rawValue), message: "cancelled while the transfer was in progress"))
        }
        var reply = 0
        _ = relay_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &reply)
        return FileTransferError(
            UploadTransportError(curlCode: code, errorBuffer: curl.errorText), replyCode: reply, hostKey: hostKey.refusal,
            refusal: state.refusal)
    }
}

/// A failed FTP or SFTP upload: curl's error, the server's last reply, a refused host key, and
/// the FTP server's refusal in its own words.
public struct FileTransferError: Error, Sendable, Equatable {
    public var transport: UploadTransportError
    public var replyCode: Int
    public var hostKey: HostKeyRefusal?
    public var refusal: FTPServerReply?

    public init(_ transport: UploadTransportError, replyCode: Int = 0, hostKey: HostKeyRefusal? = nil, refusal: FTPServerReply? = nil) {
        self.transport = transport
        self.replyCode = replyCode
        self.hostKey = hostKey
        self.refusal = refusal
    }
}

/// One FTP reply line as the server sent it (`553 not a photo name`).
public struct FTPServerReply: Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var text: String

    public init(code: Int, text: String) {
        self.code = code
        self.text = text
    }

    /// A reply line (`NNN text` or the last line of a multi-line reply); nil for anything else.
    public init?(line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = trimmed.prefix(3)
        guard digits.count == 3, digits.allSatisfy(\.isASCII), let code = Int(digits), (100...599).contains(code) else { return nil }
        let rest = trimmed.dropFirst(3)
        guard rest.isEmpty || rest.first == " " else { return nil }
        self.init(code: code, text: String(rest.drop(while: { $0 == " " }).prefix(200)))
    }

    public var description: String { text.isEmpty ? "\(code)" : "\(code) \(text)" }

    /// RFC 959's permanent negative completion (5yz): the same command will fail again.
    public var isPermanent: Bool { (500...599).contains(code) }
}

/// libcurl's SSH host key callback: only a key known_hosts lists for this host passes.
final class HostKeyCheck {
    private(set) var refusal: HostKeyRefusal?

    static let callback: curl_sshkeycallback = { _, _, found, match, clientData in
        guard let clientData else { return Int32(CURLKHSTAT_REJECT.rawValue) }
        let check = Unmanaged<HostKeyCheck>.fromOpaque(clientData).takeUnretainedValue()
        if match == CURLKHMATCH_OK { return Int32(CURLKHSTAT_FINE.rawValue) }
        var fingerprint = "unknown"
        if let found, let key = found.pointee.key {
            let blob: [UInt8] =
                found.pointee.len > 0
                ? Array(UnsafeRawBufferPointer(start: key, count: found.pointee.len))
                : Array(Data(base64Encoded: String(cString: key)) ?? Data())
            fingerprint = HostKeyCheck.fingerprint(of: blob)
        }
        check.refusal = HostKeyRefusal(mismatch: match == CURLKHMATCH_MISMATCH, fingerprint: fingerprint)
        return Int32(CURLKHSTAT_REJECT.rawValue)
    }

    /// OpenSSH's form: `SHA256:` and the unpadded base64 of the key blob's SHA-256.
    static func fingerprint(of blob: [UInt8]) -> String {
        var digest = SHA256Digest()
        digest.update(blob)
        var text = digest.base64()
        while text.hasSuffix("=") { text.removeLast() }
        return "SHA256:" + text
    }
}
