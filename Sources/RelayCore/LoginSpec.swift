/// A login as the command line names it (`--ftp-user`, `--http-user`): `NAME`, its secret in a
/// default environment variable, or `NAME:VARIABLE`. Secrets never come from the command line
/// (visible in `ps`) or from a file relay writes.
public enum LoginSpec {
    /// Whether `name` can be a login: letters, digits, `-`, `_` and `.` (not first), at most 64
    /// bytes. A login is also a photographer's name in paths and file names, so nothing else.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 64
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }

    /// The name and the environment variable that holds its secret.
    public static func split(_ spec: String, defaultVariable: String) -> (name: String, variable: String) {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        return (String(parts[0]), parts.count > 1 ? String(parts[1]) : defaultVariable)
    }
}
