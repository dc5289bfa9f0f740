import Foundation
import RelayCore

/// A WordPress site as a `wps://USER@HOST[:PORT]/[FOLDER/]` config names it (`wp://` for plain
/// http), and how its REST API's routes are addressed once its root is known. Pure, so URLs
/// are tested without a site.
public struct WordPressSite: Sendable, Equatable {
    /// https (`wps://`) or http (`wp://`).
    public var secure: Bool
    /// The user whose Application Password the config's `password` is.
    public var user: String
    /// The site's home page: where its REST API is announced.
    public var home: String

    public init(config: RequestConfig) throws(ConfigError) {
        let url = config.url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), ["wp", "wps"].contains(scheme),
            let host = parts.host, !host.isEmpty
        else {
            throw .invalidURL(
                url, reason: "a WordPress site's URL is wps://USER@SITE/ (wp:// for plain http), with the site's folder if it has one")
        }
        guard let user = parts.user.flatMap({ $0.removingPercentEncoding ?? $0 }), !user.isEmpty else {
            throw .invalidURL(url, reason: "name the WordPress user whose Application Password relay uses: wps://USER@\(host)/")
        }
        guard parts.query == nil, parts.fragment == nil else {
            throw .invalidURL(url, reason: "give the site's address without ?… or #…: relay finds its REST API itself")
        }
        secure = scheme == "wps"
        self.user = user
        var path = parts.percentEncodedPath
        if !path.hasSuffix("/") { path += "/" }
        home = (secure ? "https" : "http") + "://\(parts.percentEncodedHost ?? host)" + (parts.port.map { ":\($0)" } ?? "") + path
    }

    /// The REST API's root announced by the site (`Link: <…>; rel="https://api.w.org/"`, one
    /// of `links`, each a Link header's value): `…/wp-json/`, or `…/index.php?rest_route=/` on a
    /// site with plain permalinks. Nil when the site announces none.
    public static func restRoot(fromLinks links: [String]) -> String? {
        for value in links {
            for link in value.split(separator: ",") {
                let parts = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let target = parts.first, target.hasPrefix("<"), target.hasSuffix(">"),
                    parts.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "") == "rel=\"https://api.w.org/\"" })
                else { continue }
                return String(target.dropFirst().dropLast())
            }
        }
        return nil
    }

    /// The URL of `route` (`wp/v2/media`) below `root` with `query` items, in either form of root.
    public static func url(root: String, _ route: String, query: [(String, String)] = []) -> String {
        var url = root + route
        let items = query.map { "\($0.0)=\(escape($0.1))" }
        if !items.isEmpty { url += (url.contains("?") ? "&" : "?") + items.joined(separator: "&") }
        return url
    }

    /// A query value, percent-encoded as a form does (every reserved character).
    static func escape(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// The attachment's slug for a photo's delivery key: how a re-send finds an upload whose
    /// answer was lost. WordPress keeps slugs in lower case, letters, digits and hyphens.
    public static func slug(forKey key: String) -> String {
        let kept = key.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "-" }
        return "relay-" + String(kept.prefix(160))
    }
}
