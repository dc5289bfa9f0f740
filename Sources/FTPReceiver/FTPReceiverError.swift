/// What stops the FTP receiver from starting, said so that the photographer knows what to do.
public enum FTPReceiverError: Error, Sendable, Equatable, CustomStringConvertible {
    case badUserName(String)
    case missingPassword(user: String, variable: String)
    case noUsers
    case duplicateUser(String)
    case badListenAddress(String)
    case cannotListen(address: String, reason: String)
    case state(path: String, reason: String)
    case tls(reason: String)
    case badTLSMode(String)

    public var description: String {
        switch self {
        case .badUserName(let name):
            return "FTP user name '\(name)' must be 1 to 64 letters, digits, '-', '_' or '.'"
        case .missingPassword(let user, let variable):
            return "no password for FTP user \(user): set it in the environment (export \(variable)=…), "
                + "or name another variable with --ftp-user \(user):VARIABLE"
        case .noUsers:
            return "the FTP receiver needs a user: --ftp-user NAME, with the password in RELAY_FTP_PASSWORD"
        case .duplicateUser(let name):
            return "FTP user \(name) is given twice: give each --ftp-user once"
        case .badListenAddress(let text):
            return "--ftp '\(text)' is not [ADDRESS:]PORT (e.g. 2121 or 192.168.1.10:2121)"
        case .cannotListen(let address, let reason):
            return "cannot receive FTP on \(address): \(reason). Another FTP server may use that port: "
                + "give another with --ftp PORT (ports below 1024 need root)"
        case .state(let path, let reason):
            return "cannot use the FTP receiver's folder \(path): \(reason)"
        case .tls(let reason):
            return "FTPS: \(reason)"
        case .badTLSMode(let text):
            return "--ftp-tls '\(text)' must be off, optional (FTPS when the camera asks) or required (plain FTP refused)"
        }
    }
}
