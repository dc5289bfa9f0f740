import Foundation

/// Expands `${NAME}` references in header values, so that tokens live in the environment and not
/// in `configs.json`. An unset variable is an error naming it (an empty token would be sent
/// silently otherwise); `$` not followed by `{` is left as it is.
public enum EnvironmentExpansion {
    public static func expand(_ value: String, header: String, environment: [String: String]) throws(ConfigError) -> String {
        var output = ""
        var rest = Substring(value)
        while let start = rest.range(of: "${") {
            output += rest[..<start.lowerBound]
            let afterOpen = rest[start.upperBound...]
            guard let close = afterOpen.firstIndex(of: "}") else {
                output += rest[start.lowerBound...]
                return output
            }
            let name = String(afterOpen[..<close])
            guard let replacement = environment[name] else {
                throw .unknownEnvironmentVariable(name: name, header: header)
            }
            output += replacement
            rest = afterOpen[afterOpen.index(after: close)...]
        }
        output += rest
        return output
    }
}
