import Foundation

extension FTPCommand {
    /// Parses one control line (without its CR LF). Leading Telnet IAC sequences are dropped
    /// (clients send `ABOR` after IAC IP, IAC DM: RFC 959 section 4.1.3); the verb is
    /// case-insensitive; the argument is everything after the first space, kept as sent, since
    /// file names may contain and end with spaces.
    public init(parsing line: [UInt8]) throws(FTPParseError) {
        var start = 0
        while start + 1 < line.count, line[start] == 0xFF {
            start += line[start + 1] == 0xFF ? 1 : 2
        }
        var end = line.count
        while end > start, line[end - 1] == 0x0D || line[end - 1] == 0x0A { end -= 1 }
        guard let text = String(validating: line[start..<end], as: UTF8.self) else { throw .notUTF8 }
        guard !text.contains("\0") else { throw .badArgument(verb: "", reason: "NUL in the command") }
        let verbText: Substring
        let argument: String?
        if let space = text.firstIndex(of: " ") {
            verbText = text[..<space]
            argument = String(text[text.index(after: space)...])
        } else {
            verbText = Substring(text)
            argument = nil
        }
        guard (3...4).contains(verbText.count), verbText.allSatisfy({ $0.isASCII && $0.isLetter }) else { throw .notACommand }
        let verb = verbText.uppercased()
        self = try Self.make(verb: verb, argument: argument)
    }

    private static func make(verb: String, argument: String?) throws(FTPParseError) -> FTPCommand {
        func required() throws(FTPParseError) -> String {
            guard let argument, !argument.isEmpty else { throw .missingArgument(verb: verb) }
            return argument
        }
        /// An argument that is one word: surrounding spaces dropped, spaces only is none.
        func word() throws(FTPParseError) -> String {
            let text = try required().trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw .missingArgument(verb: verb) }
            return text
        }
        func optional() -> String? {
            guard let argument, !argument.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            return argument
        }
        switch verb {
        case "USER": return .user(try required())
        case "PASS": return .pass(argument ?? "")
        case "ACCT": return .acct
        case "SYST": return .syst
        case "FEAT": return .feat
        case "OPTS":
            let parts = try word().split(separator: " ", maxSplits: 1)
            return .opts(name: parts[0].uppercased(), value: parts.count > 1 ? String(parts[1]) : "")
        case "PWD", "XPWD": return .pwd
        case "CWD", "XCWD": return .cwd(try required())
        case "CDUP", "XCUP": return .cdup
        case "MKD", "XMKD": return .mkd(try required())
        case "RMD", "XRMD": return .rmd(try required())
        case "TYPE": return .type(try parseType(try required()))
        case "MODE": return .mode(try word().uppercased())
        case "STRU": return .stru(try word().uppercased())
        case "PASV": return .pasv
        case "EPSV": return .epsv(try parseEPSV(optional()))
        case "PORT":
            let text = try required()
            do { return .port(try FTPHostPort(portArgument: text)) } catch { throw .badArgument(verb: verb, reason: error.description) }
        case "EPRT":
            let text = try required()
            do { return .eprt(try FTPHostPort(eprtArgument: text)) } catch { throw .badArgument(verb: verb, reason: error.description) }
        case "STOR": return .stor(try required())
        case "APPE": return .appe(try required())
        case "REST":
            guard let offset = Int64(try word()), offset >= 0 else {
                throw .badArgument(verb: verb, reason: "the offset must be a number of bytes")
            }
            return .rest(offset)
        case "SIZE": return .size(try required())
        case "MDTM": return .mdtm(try required())
        case "LIST": return .list(optional())
        case "NLST": return .nlst(optional())
        case "RETR": return .retr(try required())
        case "DELE": return .dele(try required())
        case "RNFR": return .rnfr(try required())
        case "RNTO": return .rnto(try required())
        case "NOOP": return .noop
        case "ABOR": return .abor
        case "QUIT": return .quit
        case "STAT": return .stat
        case "HELP": return .help
        case "ALLO": return .allo
        case "AUTH": return .auth(try word().uppercased())
        case "PBSZ":
            guard let size = Int(try word()), size >= 0 else {
                throw .badArgument(verb: verb, reason: "the buffer size must be a number")
            }
            return .pbsz(size)
        case "PROT": return .prot(try word().uppercased())
        default: return .unknown(verb)
        }
    }

    private static func parseType(_ text: String) throws(FTPParseError) -> FTPTransferType {
        let parts = text.uppercased().split(separator: " ")
        switch parts.first {
        case "I" where parts.count == 1: return .image
        case "L" where parts.count == 2 && parts[1] == "8": return .image
        case "A" where parts.count == 1 || (parts.count == 2 && parts[1] == "N"): return .ascii
        default: throw .badArgument(verb: "TYPE", reason: "only TYPE A and TYPE I are supported")
        }
    }

    private static func parseEPSV(_ text: String?) throws(FTPParseError) -> FTPEPSVArgument {
        guard let text = text?.trimmingCharacters(in: .whitespaces) else { return .any }
        if text.uppercased() == "ALL" { return .all }
        guard let number = Int(text), number == 1 || number == 2 else {
            throw .badArgument(verb: "EPSV", reason: "the network protocol must be 1 (IPv4) or 2 (IPv6)")
        }
        return .networkProtocol(number)
    }
}
