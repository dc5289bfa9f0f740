/// What to type into the camera's FTP settings, printed by `relay run --ftp` and `relay ftp-setup`.
/// The menu names follow the vendors' manuals (Canon "FTP transfer settings" in the EOS R5/R3
/// Wireless Function guides, Nikon "Connect to FTP server" in the Z 8/Z 9 Network guides, Sony
/// "FTP Transfer Func." in the Alpha 1/7 IV help guides); none was tried on a body here.
public enum FTPSetupText {
    /// `addresses`: this machine's addresses a camera on its network can reach.
    /// `tlsFingerprint`: the certificate the camera will show for approval (nil: FTPS off).
    public static func make(options: FTPReceiverOptions, port: UInt16, addresses: [String], tlsFingerprint: String?) -> String {
        let server = addresses.isEmpty ? "this machine's address on the camera's network" : addresses.joined(separator: " or ")
        var lines = [
            "camera FTP settings (Canon: Network > FTP transfer; Nikon: Network > Connect to FTP server; Sony: Network > FTP Transfer Func. > Server Setting):",
            "  server (host name): \(server)",
            "  port: \(port)",
            "  mode: passive on (active works too)",
        ]
        switch (options.tls, tlsFingerprint) {
        case (.off, _), (_, nil):
            lines.append("  security: plain FTP (FTPS and SFTP off)")
        case (let mode, let fingerprint?):
            lines.append(
                "  security: FTPS, explicit (AUTH TLS)" + (mode == .optional ? "; plain FTP also accepted" : "; plain FTP is refused"))
            lines.append("  the camera shows relay's certificate once: approve it if its SHA-256 fingerprint is")
            lines.append("    \(fingerprint)")
        }
        for account in options.accounts {
            lines.append("  user: \(account.name)  password: the one relay was given for \(account.name)  folder: / (or any folder)")
        }
        lines.append(
            "  proxy: off; overwrite same file name: on; transfer: JPEG"
                + (options.includeRAW ? " and RAW" : " (RAW and video are received and skipped)"))
        return lines.joined(separator: "\n")
    }
}
