import COpenSSL
import Foundation
import RelayCore

/// The receiver's TLS identity: a self-signed certificate made on first start in
/// `RELAY_HOME/ftp/tls/` and kept, so the fingerprint a photographer approved on the camera
/// stays the same from run to run.
///
/// `@unchecked Sendable`: the OpenSSL context is only read after it is set up (SSL_new is safe
/// from several threads on one context).
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// SHA-256 of the certificate, `AB:CD:…`, as cameras show it.
    let fingerprint: String
    let certificateURL: URL

    init(home: RelayHome) throws(FTPReceiverError) {
        let folder = home.root.appendingPathComponent("ftp/tls", isDirectory: true)
        certificateURL = folder.appendingPathComponent("certificate.pem")
        let keyURL = folder.appendingPathComponent("key.pem")
        do { try StateDirectory.create(folder) } catch { throw .state(path: folder.path, reason: error.description) }
        if !FileManager.default.fileExists(atPath: certificateURL.path) || !FileManager.default.fileExists(atPath: keyURL.path) {
            let name = ProcessInfo.processInfo.hostName
            let old = umask(0o077)
            let made = relay_tls_make_certificate(certificateURL.path, keyURL.path, "relay on \(name)", 3650)
            umask(old)
            guard made == 1 else { throw .tls(reason: "cannot make a certificate in \(folder.path): \(Self.lastError())") }
        }
        guard let context = relay_tls_server_context(certificateURL.path, keyURL.path) else {
            throw .tls(
                reason: "cannot use the certificate \(certificateURL.path): \(Self.lastError()); "
                    + "remove \(folder.path) to make a new one (the camera will ask to approve it again)")
        }
        self.context = context
        var digest = [UInt8](repeating: 0, count: 32)
        guard relay_tls_certificate_sha256(context, &digest) == 1 else {
            SSL_CTX_free(context)
            throw .tls(reason: "cannot read the certificate's fingerprint: \(Self.lastError())")
        }
        fingerprint = digest.map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    deinit { SSL_CTX_free(context) }

    static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        relay_tls_last_error(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "unknown TLS error" : text
    }
}
