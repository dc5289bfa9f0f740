import RelayCore

/// One photographer's login: a name and a password taken from the environment, never from the
/// command line (visible in `ps`) or from a file relay writes.
public struct FTPAccount: Sendable, Equatable {
    public var name: String
    public var password: String

    public init(name: String, password: String) {
        self.name = name
        self.password = password
    }

    /// The environment variable `--ftp-user NAME` takes its password from.
    public static let defaultPasswordVariable = "RELAY_FTP_PASSWORD"

    /// Reads `NAME` (password in `RELAY_FTP_PASSWORD`) or `NAME:VARIABLE` (password in VARIABLE).
    public static func parse(_ spec: String, environment: [String: String]) throws(FTPReceiverError) -> FTPAccount {
        let (name, variable) = LoginSpec.split(spec, defaultVariable: defaultPasswordVariable)
        guard LoginSpec.isValidName(name) else { throw .badUserName(name) }
        guard let password = environment[variable], !password.isEmpty else {
            throw .missingPassword(user: name, variable: variable)
        }
        return FTPAccount(name: name, password: password)
    }

    /// Compares without stopping at the first difference, so the time taken does not tell how
    /// much of a guess was right.
    func accepts(_ guess: String) -> Bool {
        SecretComparison.matches(guess, password)
    }
}
