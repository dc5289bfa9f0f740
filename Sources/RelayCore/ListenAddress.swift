/// `[ADDRESS:]PORT` as `--ftp` and `--http` take it: `2121`, `127.0.0.1:2121`, `[::1]:2121`.
/// Without an address, every IPv4 address (`0.0.0.0`).
public enum ListenAddress {
    /// The host and port; nil when `text` is not of that form.
    public static func parse(_ text: String) -> (host: String, port: UInt16)? {
        var host = "0.0.0.0"
        var portText = Substring(text)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portText = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = UInt16(portText) else { return nil }
        return (host, port)
    }

    /// Whether `host` is this machine only (nothing on the network can reach it).
    public static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1" || host == "localhost"
    }
}
