import Foundation

/// One reply on the control connection: a three-digit code and one or more lines of text,
/// written in RFC 959's single-line (`226 text`) or multi-line (`211-text` … `211 End`) form.
public struct FTPReply: Sendable, Equatable {
    public var code: Int
    public var lines: [String]

    public init(_ code: Int, _ text: String) {
        self.code = code
        lines = [text]
    }

    public init(_ code: Int, lines: [String]) {
        self.code = code
        self.lines = lines.isEmpty ? [""] : lines
    }

    /// The reply's bytes, CR LF ended. A line break inside a text cannot end the reply early:
    /// CR and LF in texts become spaces, and inner lines that would look like the final one
    /// are indented.
    public var encoded: [UInt8] {
        let clean = lines.map { line in
            String(String.UnicodeScalarView(line.unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : $0 }))
        }
        if clean.count == 1 { return Array("\(code) \(clean[0])\r\n".utf8) }
        var text = "\(code)-\(clean[0])\r\n"
        for line in clean.dropFirst().dropLast() {
            text += (line.first?.isNumber == true ? " " : "") + line + "\r\n"
        }
        text += "\(code) \(clean[clean.count - 1])\r\n"
        return Array(text.utf8)
    }

    /// A 257 reply naming a folder: quotes in the name are doubled (RFC 959 appendix II).
    public static func folder(_ path: String, _ text: String) -> FTPReply {
        FTPReply(257, "\"\(path.replacingOccurrences(of: "\"", with: "\"\""))\" \(text)")
    }
}
