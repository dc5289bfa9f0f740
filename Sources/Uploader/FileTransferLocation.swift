import Foundation
import RelayCore

/// Where a photo goes on an FTP, FTPS or SFTP server, from a config's URL (pure, so paths and
/// commands are tested without a server).
///
/// The URL's path is a template like an S3 key (`ftp://host/incoming/{date}/{name}`; a path
/// without placeholders is a folder, followed by the photo's name). Each file is uploaded as
/// `.NAME.part` beside its final name and renamed once complete, so a receiver that watches the
/// folder never picks up a partial file (hidden and `.part` names are what such receivers skip).
/// The rule for an existing file of the same name: it is replaced, which is also what makes a
/// retry after a lost answer leave one file, not two.
public struct FileTransferLocation: Sendable, Equatable {
    public enum Scheme: String, Sendable {
        /// Plain FTP.
        case ftp
        /// FTP with explicit TLS (AUTH TLS on the control port, then protected data).
        case ftps
        case sftp
    }

    public var scheme: Scheme
    public var user: String?
    public var host: String
    public var port: Int
    /// The path template: relative to the login folder for FTP, absolute for SFTP.
    public var pathTemplate: PathTemplate

    public init(config: RequestConfig) throws(ConfigError) {
        let url = config.url.trimmingCharacters(in: .whitespacesAndNewlines)
        let template = try PathTemplate(url)
        guard let sample = URLComponents(string: template.render(PathTemplate.sample)),
            let scheme = sample.scheme.flatMap({ Scheme(rawValue: $0.lowercased()) }), let host = sample.host
        else {
            throw .invalidURL(url, reason: "an FTP destination's URL is ftp://, ftps:// or sftp://[USER@]HOST[:PORT]/PATH")
        }
        self.scheme = scheme
        self.host = host
        user = sample.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        port = sample.port ?? (scheme == .sftp ? 22 : 21)
        // The path as written (placeholders intact): after scheme://authority.
        let afterScheme = url[url.index(url.startIndex, offsetBy: scheme.rawValue.count + 3)...]
        var path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
        path = path.removingPercentEncoding ?? path
        if scheme != .sftp { while path.hasPrefix("/") { path.removeFirst() } }
        var pathTemplate = try PathTemplate(path)
        if !pathTemplate.hasPlaceholders {
            while path.hasSuffix("/") { path.removeLast() }
            pathTemplate = try PathTemplate(path.isEmpty ? "{name}" : path + "/{name}")
        }
        self.pathTemplate = pathTemplate
    }

    /// One photo's place: its folder, final name and temporary name.
    public struct Target: Sendable, Equatable {
        public var folder: String
        public var name: String
        public var partName: String { ".\(name).part" }
        public var finalPath: String { folder.isEmpty ? name : "\(folder)/\(name)" }
        public var partPath: String { folder.isEmpty ? partName : "\(folder)/\(partName)" }
    }

    public func target(for values: PathTemplate.Values) -> Target {
        let path = pathTemplate.render(values)
        guard let slash = path.lastIndex(of: "/") else { return Target(folder: "", name: path) }
        return Target(folder: String(path[..<slash]), name: String(path[path.index(after: slash)...]))
    }

    /// The URL libcurl uploads the temporary file to. `ftps` travels as `ftp` with TLS required
    /// (libcurl's `ftps://` is implicit TLS on port 990, which is not what FTPS servers offer).
    public func uploadURL(_ target: Target) -> String {
        url(target.partPath)
    }

    /// The URL libcurl reaches `path` (a target's final or temporary path) by.
    public func url(_ path: String) -> String {
        let wire = scheme == .sftp ? "sftp" : "ftp"
        let path = path.split(separator: "/", omittingEmptySubsequences: false).map { Self.encode(String($0)) }
            .joined(separator: "/")
        let host = host.contains(":") ? "[\(host)]" : host
        return "\(wire)://\(host):\(port)" + (scheme == .sftp ? path : "/" + path)
    }

    /// The commands libcurl sends once the upload is complete: the rename into place. FTP runs
    /// them in the file's folder (libcurl changed into it); SFTP needs whole paths and does not
    /// replace an existing file on rename, so that file goes first (`*`: its absence is fine).
    public func renameCommands(_ target: Target) -> [String] {
        switch scheme {
        case .ftp, .ftps:
            return ["RNFR \(target.partName)", "RNTO \(target.name)"]
        case .sftp:
            return ["*rm \(Self.quoted(target.finalPath))", "rename \(Self.quoted(target.partPath)) \(Self.quoted(target.finalPath))"]
        }
    }

    /// `ftp://host/incoming/IMG_0042.JPG`, how the history and the log name a delivered file.
    public func displayName(_ target: Target) -> String {
        let path = target.finalPath.hasPrefix("/") ? target.finalPath : "/" + target.finalPath
        return "\(scheme.rawValue)://\(user.map { "\($0)@" } ?? "")\(host):\(port)\(path)"
    }

    static func quoted(_ path: String) -> String {
        "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Path characters a URL may carry as they are; everything else %XX.
    static func encode(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#%"))) ?? segment
    }
}
