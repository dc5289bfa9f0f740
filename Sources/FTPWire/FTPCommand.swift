/// One command a client sent on the control connection, with its argument already in the form
/// RFC 959 (and RFC 2389, 2428, 3659, 4217 for the extensions cameras use) gives it.
///
/// Parsing is pure: a line of bytes in, a command or an ``FTPParseError`` out, so the fuzzer and
/// the tests reach every branch without a socket.
public enum FTPCommand: Sendable, Equatable {
    case user(String)
    case pass(String)
    case acct
    case syst
    case feat
    /// RFC 2389 `OPTS`: the option's name (upper-cased) and the rest as given ("UTF8", "ON").
    case opts(name: String, value: String)
    case pwd
    case cwd(String)
    case cdup
    case mkd(String)
    case rmd(String)
    case type(FTPTransferType)
    case mode(String)
    case stru(String)
    case pasv
    /// RFC 2428 `EPSV`, `EPSV 1|2` (a network protocol) or `EPSV ALL`.
    case epsv(FTPEPSVArgument)
    case port(FTPHostPort)
    case eprt(FTPHostPort)
    case stor(String)
    case appe(String)
    case rest(Int64)
    case size(String)
    case mdtm(String)
    /// `LIST`/`NLST` with their optional argument (a path, or `-la`-style flags some clients send).
    case list(String?)
    case nlst(String?)
    case retr(String)
    case dele(String)
    case rnfr(String)
    case rnto(String)
    case noop
    case abor
    case quit
    case stat
    case help
    /// `ALLO` (RFC 959): a size announcement most servers ignore.
    case allo
    /// RFC 4217 `AUTH TLS` (or `AUTH SSL`, its older name).
    case auth(String)
    case pbsz(Int)
    /// RFC 4217 `PROT C|P` (clear or private data connections).
    case prot(String)
    /// A verb this server does not implement (answered 502), upper-cased.
    case unknown(String)

    /// The verb as sent on the wire, for logs (never the argument: PASS carries a password).
    public var verb: String {
        switch self {
        case .user: return "USER"
        case .pass: return "PASS"
        case .acct: return "ACCT"
        case .syst: return "SYST"
        case .feat: return "FEAT"
        case .opts: return "OPTS"
        case .pwd: return "PWD"
        case .cwd: return "CWD"
        case .cdup: return "CDUP"
        case .mkd: return "MKD"
        case .rmd: return "RMD"
        case .type: return "TYPE"
        case .mode: return "MODE"
        case .stru: return "STRU"
        case .pasv: return "PASV"
        case .epsv: return "EPSV"
        case .port: return "PORT"
        case .eprt: return "EPRT"
        case .stor: return "STOR"
        case .appe: return "APPE"
        case .rest: return "REST"
        case .size: return "SIZE"
        case .mdtm: return "MDTM"
        case .list: return "LIST"
        case .nlst: return "NLST"
        case .retr: return "RETR"
        case .dele: return "DELE"
        case .rnfr: return "RNFR"
        case .rnto: return "RNTO"
        case .noop: return "NOOP"
        case .abor: return "ABOR"
        case .quit: return "QUIT"
        case .stat: return "STAT"
        case .help: return "HELP"
        case .allo: return "ALLO"
        case .auth: return "AUTH"
        case .pbsz: return "PBSZ"
        case .prot: return "PROT"
        case .unknown(let verb): return verb
        }
    }
}

/// RFC 959 `TYPE`: ASCII (with its optional format, only non-print accepted) or image (binary).
public enum FTPTransferType: String, Sendable, Equatable {
    case ascii = "A"
    case image = "I"
}

/// The argument of RFC 2428 `EPSV`.
public enum FTPEPSVArgument: Sendable, Equatable {
    /// No argument, or the network protocol of the control connection.
    case any
    /// `EPSV 1` (IPv4) or `EPSV 2` (IPv6).
    case networkProtocol(Int)
    /// `EPSV ALL`: from now on only EPSV (no PORT, PASV or EPRT).
    case all
}

/// Why a line is not a command this server can act on; each maps to the reply RFC 959 gives.
public enum FTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An empty line or a verb that is not 3 or 4 letters (500).
    case notACommand
    /// The verb needs an argument and got none (501).
    case missingArgument(verb: String)
    /// The argument does not have the form the verb takes (501).
    case badArgument(verb: String, reason: String)
    /// The line is not UTF-8 (RFC 2640; cameras send ASCII names) (501).
    case notUTF8

    public var description: String {
        switch self {
        case .notACommand: return "not an FTP command"
        case .missingArgument(let verb): return "\(verb) needs an argument"
        case .badArgument(let verb, let reason): return "\(verb): \(reason)"
        case .notUTF8: return "the command is not UTF-8"
        }
    }

    /// The RFC 959 reply code for this error.
    public var replyCode: Int {
        if case .notACommand = self { return 500 }
        return 501
    }
}
