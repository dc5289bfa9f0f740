/// Why `relay run --http` cannot start: each names the fix.
public enum HTTPInboxError: Error, Sendable, Equatable, CustomStringConvertible {
    case noUsers
    case badUserName(String)
    case duplicateUser(String)
    case missingToken(user: String, variable: String)
    case weakToken(user: String, variable: String)
    case badListenAddress(String)
    case cannotListen(address: String, reason: String)
    case state(path: String, reason: String)
    case serverFailed(address: String)

    public var description: String {
        switch self {
        case .noUsers:
            return "the HTTP inbox needs at least one login: --http-user NAME (its token in $RELAY_HTTP_TOKEN) or --http-user NAME:VARIABLE"
        case .badUserName(let name):
            return "'\(name)' is not a usable login name: letters, digits, '-', '_' and '.' (not first), at most 64"
        case .duplicateUser(let name):
            return "--http-user \(name) is given twice: each photographer has one login"
        case .missingToken(let user, let variable):
            return "no token for --http-user \(user): set \(variable) in relay's environment (e.g. \(variable)=$(openssl rand -hex 16))"
        case .weakToken(let user, let variable):
            return "the token of --http-user \(user) in \(variable) is shorter than 16 characters: make a longer one "
                + "(openssl rand -hex 16): anyone on the venue's network could guess it"
        case .badListenAddress(let text):
            return "--http \(text): give [ADDRESS:]PORT, e.g. --http 8080 or --http 127.0.0.1:8080"
        case .cannotListen(let address, let reason):
            return "cannot listen on \(address) for the HTTP inbox: \(reason) (another program may use the port: pick another with --http)"
        case .state(let path, let reason):
            return "cannot use the HTTP inbox's state at \(path): \(reason)"
        case .serverFailed(let address):
            return "the HTTP inbox could not start on \(address) (libmicrohttpd refused): check the address, or run relay again"
        }
    }
}
