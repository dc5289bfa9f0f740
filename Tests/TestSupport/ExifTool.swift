import Foundation

/// exiftool (libimage-exiftool-perl), read as a gallery reads a photo: the tags asked for, with
/// the Metadata Working Group composites, as strings (a list joined with "|").
public enum ExifTool {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public static func tags(_ file: URL, _ tags: [String]) throws -> [String: String] {
        guard let tool = Subprocess.which("exiftool") else {
            throw Failure(description: "exiftool (libimage-exiftool-perl) is a test dependency")
        }
        let result = try Subprocess.run(tool, ["-j", "-use", "MWG"] + tags + [file.path])
        guard result.status == 0 else { throw Failure(description: "exiftool \(file.path): \(result.stderr)") }
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        return (parsed?.first ?? [:]).mapValues { ($0 as? [Any])?.map { "\($0)" }.joined(separator: "|") ?? "\($0)" }
    }
}
