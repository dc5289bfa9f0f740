import Foundation
import RelayCore

/// One photographer's (or phone's) login to the inbox: a name and a token taken from the
/// environment, never from the command line (visible in `ps`) or from a file relay writes.
public struct HTTPInboxLogin: Sendable, Equatable {
    public var name: String
    public var token: String

    public init(name: String, token: String) {
        self.name = name
        self.token = token
    }

    /// The environment variable `--http-user NAME` takes its token from.
    public static let defaultTokenVariable = "RELAY_HTTP_TOKEN"

    /// Reads `NAME` (token in `RELAY_HTTP_TOKEN`) or `NAME:VARIABLE` (token in VARIABLE). A name
    /// is what the desk credits the photos with, and a folder name in paths: letters, digits,
    /// `-`, `_` and `.`, not starting with a dot.
    public static func parse(_ spec: String, environment: [String: String]) throws(HTTPInboxError) -> HTTPInboxLogin {
        let (name, variable) = LoginSpec.split(spec, defaultVariable: defaultTokenVariable)
        guard LoginSpec.isValidName(name) else { throw .badUserName(name) }
        guard let token = environment[variable], !token.isEmpty else {
            throw .missingToken(user: name, variable: variable)
        }
        guard token.utf8.count >= 16 else { throw .weakToken(user: name, variable: variable) }
        return HTTPInboxLogin(name: name, token: token)
    }
}

/// Who an `Authorization` header names, among `logins`: `Bearer TOKEN` (the token alone says who)
/// or Basic `NAME:TOKEN`. Nil for no header, a wrong token or an unknown name alike, so that an
/// answer never hints which.
public enum HTTPInboxAuthorization {
    public static func login(for header: String?, among logins: [HTTPInboxLogin]) -> HTTPInboxLogin? {
        guard let header = header?.trimmingCharacters(in: .whitespaces) else { return nil }
        let lower = header.lowercased()
        if lower.hasPrefix("bearer ") {
            let token = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            // Every login is compared, so that the time taken does not tell which came close.
            var found: HTTPInboxLogin?
            for login in logins where SecretComparison.matches(token, login.token) { found = login }
            return found
        }
        if lower.hasPrefix("basic ") {
            let encoded = header.dropFirst("basic ".count).trimmingCharacters(in: .whitespaces)
            guard let decoded = Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) },
                let colon = decoded.firstIndex(of: ":")
            else { return nil }
            let name = String(decoded[..<colon])
            let token = String(decoded[decoded.index(after: colon)...])
            guard let login = logins.first(where: { $0.name == name }) else {
                _ = SecretComparison.matches(token, token)
                return nil
            }
            return SecretComparison.matches(token, login.token) ? login : nil
        }
        return nil
    }
}
