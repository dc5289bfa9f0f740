import Foundation

/// The text of `LIST`, `NLST` and `MDTM` answers. There is no standard LIST format; this is the
/// Unix `ls -l` form that FTP clients (curl, lftp, FileZilla, cameras that check a folder) parse.
public enum FTPListing {
    /// One entry of a folder listing.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var isFolder: Bool
        public var bytes: Int64
        public var modified: Date

        public init(name: String, isFolder: Bool, bytes: Int64, modified: Date) {
            self.name = name
            self.isFolder = isFolder
            self.bytes = bytes
            self.modified = modified
        }
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `drwx------ 1 ftp ftp 0 Jan 02 15:04 NAME` lines, CR LF ended.
    public static func long(_ entries: [Entry]) -> String {
        entries.map { entry in
            let parts = utcParts(entry.modified)
            let date = String(format: "%@ %02d %02d:%02d", months[parts.month - 1], parts.day, parts.hour, parts.minute)
            return "\(entry.isFolder ? "drwx------" : "-rw-------") 1 ftp ftp \(entry.bytes) \(date) \(entry.name)\r\n"
        }.joined()
    }

    /// Names only, CR LF ended (NLST).
    public static func names(_ entries: [Entry]) -> String {
        entries.map { $0.name + "\r\n" }.joined()
    }

    /// `YYYYMMDDHHMMSS` in UTC (RFC 3659 section 2.3).
    public static func modificationTime(_ date: Date) -> String {
        let parts = utcParts(date)
        return String(format: "%04d%02d%02d%02d%02d%02d", parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second)
    }

    private static func utcParts(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return (c.year ?? 1970, c.month ?? 1, c.day ?? 1, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
