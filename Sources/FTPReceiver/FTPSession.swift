import FTPWire
import Foundation
import Intake
import RelayCore
import RunEvents
import SocketIO

/// One control connection, served on its own thread from the greeting to QUIT (or to the
/// client's silence for `idleSeconds`, `loginIdleSeconds` before login, or relay's stop).
///
/// `@unchecked Sendable`: all its state belongs to the one thread running ``serve()``; other
/// threads only call ``interrupt()`` and ``cutForRetry()``, which shut the sockets down (safe from
/// any thread) and read and set the open data connection and `cutByRetry` in `dataState`.
final class FTPSession: @unchecked Sendable {
    let control: FTPStream
    let context: FTPReceiverContext
    /// The client's address: data connections must come from or go to it.
    let clientHost: String
    var reader = FTPLineReader()
    /// Lines that arrived during a transfer, served after it.
    var pendingLines: [[UInt8]] = []
    var account: FTPAccount?
    var offeredUser: String?
    var folder = FTPVirtualPath.root
    var transferType = FTPTransferType.ascii
    var restartOffset: Int64?
    var renameFrom: FTPVirtualPath?
    var dataChannel: FTPDataChannel?
    var epsvOnly = false
    var quitting = false
    /// AUTH TLS was answered 234: the handshake follows the reply.
    var startingTLS = false
    /// PROT P: data connections are TLS too.
    var protectData = false
    /// What other threads touch (FTPSession+Interrupt.swift).
    let dataState = LockedBox(FTPSessionDataState())

    init(control: TCPConnection, context: FTPReceiverContext) {
        control.receiveUrgentDataInline()
        self.control = FTPStream(control)
        self.context = context
        clientHost = FTPPeer.host(of: control.peer)
    }

    func serve() {
        defer {
            dropDataChannel()
            control.close()
        }
        guard reply(FTPReply(220, "relay FTP receiver ready")) else { return }
        while !quitting && !context.stop.isStopped {
            guard let line = nextLine() else { return }
            let command: FTPCommand
            do {
                command = try FTPCommand(parsing: line)
            } catch {
                guard reply(FTPReply(error.replyCode, error.description)) else { return }
                continue
            }
            guard reply(handle(command)) else { return }
            if startingTLS {
                startingTLS = false
                guard let tls = context.tls else { return }
                do {
                    try control.startTLS(tls, timeout: 30)
                } catch {
                    log("TLS handshake failed: \(error)")
                    return
                }
                reader = FTPLineReader()
            }
        }
    }

    /// The next command line; nil when the client left, stayed silent too long, or relay stops.
    private func nextLine() -> [UInt8]? {
        if !pendingLines.isEmpty { return pendingLines.removeFirst() }
        while true {
            do {
                if let line = try reader.nextLine() { return line }
            } catch {
                _ = reply(FTPReply(500, "command line too long"))
                return nil
            }
            let bytes: [UInt8]
            let idle = context.options.idleLimit(loggedIn: account != nil)
            do {
                bytes = try control.readSome(maxCount: 4096, timeout: idle)
            } catch {
                if case .timedOut = error as? SocketError {
                    _ = reply(FTPReply(421, "no command for \(Int(idle)) s: closing the connection"))
                }
                return nil
            }
            if bytes.isEmpty { return nil }
            reader.append(bytes)
        }
    }

    /// Sends a reply; false when the client is gone.
    @discardableResult
    func reply(_ reply: FTPReply) -> Bool {
        do {
            try control.write(reply.encoded, timeout: 30)
            return true
        } catch {
            return false
        }
    }

    /// The logged-in user's name (commands that need it run only after login).
    var userName: String { account?.name ?? "" }

    func log(_ message: String) {
        context.report(.info("ftp \(account?.name ?? offeredUser.map(Self.printable) ?? "-")@\(clientHost): \(message)"))
    }

    /// What a client sent, fit for the log: at most 80 characters, control characters as `?`
    /// (a name with a line break must not forge a log line).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }

    // MARK: - Commands

    private static let beforeLogin: Set<String> = ["USER", "PASS", "QUIT", "FEAT", "SYST", "NOOP", "HELP", "OPTS", "AUTH", "PBSZ", "PROT"]

    private func handle(_ command: FTPCommand) -> FTPReply {
        if account == nil && !Self.beforeLogin.contains(command.verb) {
            return FTPReply(530, "log in first (USER and PASS)")
        }
        if context.options.tls == .required && !control.isSecure && (command.verb == "USER" || command.verb == "PASS") {
            return FTPReply(530, "this relay takes FTPS only: turn on FTPS (explicit, AUTH TLS) in the camera's FTP settings")
        }
        if command.verb != "RNTO" { renameFrom = nil }
        if !command.keepsRestartOffset { restartOffset = nil }
        switch command {
        case .user(let name):
            account = nil
            offeredUser = name
            return FTPReply(331, "password for \(name), please")
        case .pass(let password):
            return login(password)
        case .acct: return FTPReply(202, "no account needed")
        case .syst: return FTPReply(215, "UNIX Type: L8")
        case .feat:
            let tls = context.tls == nil ? [] : [" AUTH TLS", " PBSZ", " PROT"]
            return FTPReply(
                211, lines: ["Features:"] + tls + [" EPRT", " EPSV", " MDTM", " PASV", " REST STREAM", " SIZE", " TVFS", " UTF8", "End"])
        case .opts(let name, let value):
            if name == "UTF8" && (value.isEmpty || value.uppercased() == "ON") { return FTPReply(200, "UTF-8 is always on") }
            return FTPReply(501, "option \(name) is not supported")
        case .pwd: return .folder(folder.description, "is the current folder")
        case .cwd(let text):
            return withPath(text) { path in
                folder = path
                return FTPReply(250, "now in \(path)")
            }
        case .cdup:
            folder = folder.parent
            return FTPReply(250, "now in \(folder)")
        case .mkd(let text):
            // Folders are virtual: any folder exists, so a camera that builds its folder tree
            // (MKD, then CWD) never fails on an existing one.
            return withPath(text) { path in .folder(path.description, "created") }
        case .rmd: return FTPReply(250, "removed")
        case .type(let type):
            transferType = type
            return FTPReply(200, "type set to \(type.rawValue)")
        case .mode(let mode): return mode == "S" ? FTPReply(200, "stream mode") : FTPReply(504, "only MODE S is supported")
        case .stru(let structure): return structure == "F" ? FTPReply(200, "file structure") : FTPReply(504, "only STRU F is supported")
        case .pasv: return passive(extended: false)
        case .epsv(let argument):
            switch argument {
            case .all:
                epsvOnly = true
                return FTPReply(200, "EPSV ALL: only EPSV from now on")
            case .networkProtocol(let number) where number != (clientHost.contains(":") ? 2 : 1):
                return FTPReply(522, "use network protocol \(clientHost.contains(":") ? 2 : 1) (that of this connection)")
            default:
                return passive(extended: true)
            }
        case .port(let target), .eprt(let target):
            return active(target)
        case .rest(let offset):
            restartOffset = offset
            return FTPReply(350, "restarting at \(offset): send STOR or APPE")
        case .stor(let text):
            return withPath(text) { path in receive(path, append: false) }
        case .appe(let text):
            return withPath(text) { path in receive(path, append: true) }
        case .size(let text):
            return withPath(text) { path in
                guard let info = context.store.info(user: userName, path: path) else { return FTPReply(550, "no such file") }
                return FTPReply(213, "\(info.bytes)")
            }
        case .mdtm(let text):
            return withPath(text) { path in
                guard let info = context.store.info(user: userName, path: path) else { return FTPReply(550, "no such file") }
                return FTPReply(213, FTPListing.modificationTime(info.modified))
            }
        case .list(let argument):
            return sendListing(argument, long: true)
        case .nlst(let argument):
            return sendListing(argument, long: false)
        case .retr:
            return FTPReply(550, "relay only receives photos; nothing can be downloaded")
        case .dele(let text):
            return withPath(text) { path in
                guard context.store.claim(user: userName, path: path) else { return FTPReply(450, "\(path.name) is being uploaded") }
                defer { context.store.release(user: userName, path: path) }
                context.store.discardPartial(user: userName, path: path)
                return FTPReply(250, "deleted (a photo already received stays delivered)")
            }
        case .rnfr(let text):
            return withPath(text) { path in
                guard context.store.info(user: userName, path: path) != nil else { return FTPReply(550, "no such file") }
                renameFrom = path
                return FTPReply(350, "ready for RNTO")
            }
        case .rnto(let text):
            guard let from = renameFrom else { return FTPReply(503, "send RNFR first") }
            renameFrom = nil
            return withPath(text) { path in rename(from, to: path) }
        case .noop: return FTPReply(200, "ok")
        case .abor: return FTPReply(225, "no transfer to abort")
        case .quit:
            quitting = true
            return FTPReply(221, "goodbye")
        case .stat: return FTPReply(211, "relay FTP receiver: \(account.map { "logged in as \($0.name)" } ?? "not logged in")")
        case .help: return FTPReply(214, "cameras upload photos here with STOR; see relay ftp-setup")
        case .allo: return FTPReply(202, "no storage allocation needed")
        case .auth(let mechanism):
            guard context.tls != nil else {
                return FTPReply(502, "FTPS is off in this relay (relay run --ftp-tls optional turns it on): use plain FTP")
            }
            guard mechanism == "TLS" || mechanism == "SSL" || mechanism == "TLS-C" else {
                return FTPReply(504, "only AUTH TLS is supported")
            }
            guard !control.isSecure else { return FTPReply(503, "TLS is on already") }
            startingTLS = true
            return FTPReply(234, "AUTH TLS ok: start the TLS handshake")
        case .pbsz:
            return control.isSecure ? FTPReply(200, "PBSZ=0") : FTPReply(503, "send AUTH TLS first")
        case .prot(let level):
            guard control.isSecure else { return FTPReply(503, "send AUTH TLS first") }
            switch level {
            case "P":
                protectData = true
                return FTPReply(200, "data connections are protected (TLS)")
            case "C" where context.options.tls != .required:
                protectData = false
                return FTPReply(200, "data connections are in the clear")
            case "C":
                return FTPReply(536, "this relay takes FTPS only: data connections must be protected (PROT P)")
            default:
                return FTPReply(504, "only PROT P and PROT C are supported")
            }
        case .unknown(let verb): return FTPReply(502, "\(verb) is not implemented")
        }
    }

    private func withPath(_ text: String, _ body: (FTPVirtualPath) -> FTPReply) -> FTPReply {
        do {
            return body(try FTPVirtualPath.resolve(text, from: folder))
        } catch {
            log("refused path '\(Self.printable(text))': \(error)")
            return FTPReply(553, "\(error)")
        }
    }

    private func login(_ password: String) -> FTPReply {
        guard let name = offeredUser else { return FTPReply(503, "send USER first") }
        if let match = context.options.accounts.first(where: { $0.name == name }), match.accepts(password) {
            account = match
            context.loginGuard.succeeded(from: clientHost)
            log("logged in")
            return FTPReply(230, "logged in; upload your photos")
        }
        let (count, delay) = context.loginGuard.failed(from: clientHost)
        context.report(
            .warning(
                "ftp: failed login as '\(Self.printable(name))' from \(clientHost) (\(count) in a row); "
                    + "check the camera's user and password"))
        context.stop.sleep(delay)
        return FTPReply(530, "wrong user or password")
    }

    // MARK: - Data connections

    private func passive(extended: Bool) -> FTPReply {
        if epsvOnly && !extended { return FTPReply(501, "EPSV ALL was given: use EPSV") }
        dropDataChannel()
        let local: String
        do { local = FTPPeer.host(of: try control.localAddress()) } catch { return FTPReply(425, "cannot open a data port: \(error)") }
        let listener: TCPListener
        do { listener = try TCPListener(host: local, port: 0, backlog: 2) } catch {
            return FTPReply(425, "cannot open a data port: \(error)")
        }
        dataChannel = .passive(listener)
        if extended { return FTPReply(229, "Entering Extended Passive Mode (|||\(listener.port)|)") }
        guard let numbers = FTPHostPort(host: local, port: listener.port).portArgument else {
            dropDataChannel()
            return FTPReply(522, "this connection is IPv6: use EPSV")
        }
        return FTPReply(227, "Entering Passive Mode (\(numbers))")
    }

    private func active(_ target: FTPHostPort) -> FTPReply {
        if epsvOnly { return FTPReply(501, "EPSV ALL was given: use EPSV") }
        guard FTPPeer.host(of: target.host + ":0") == clientHost else {
            context.report(
                .warning(
                    "ftp: \(clientHost) asked for a data connection to \(target.host) port \(target.port): refused "
                        + "(a data connection must go to the client's own address)"))
            return FTPReply(500, "data connections go only to your own address (\(clientHost))")
        }
        guard target.port >= 1024 else { return FTPReply(500, "data ports below 1024 are refused") }
        dropDataChannel()
        dataChannel = .active(target)
        return FTPReply(200, "data connection will go to \(target.host) port \(target.port)")
    }

    /// Closes the prepared data connection (a passive listener stops listening).
    func dropDataChannel() {
        dataChannel?.close()
        dataChannel = nil
    }

    /// Opens the prepared data connection (one per transfer, as RFC 959 stream mode needs).
    func openDataConnection() -> FTPStream? {
        guard let channel = dataChannel else { return nil }
        dataChannel = nil
        defer { channel.close() }
        do {
            return FTPStream(
                try channel.open(controlHost: clientHost, timeout: context.options.dataConnectSeconds, stop: context.stop) { peer in
                    context.report(.warning("ftp: data connection from \(peer) refused: the control connection is from \(clientHost)"))
                })
        } catch {
            log("no data connection: \(error)")
            return nil
        }
    }

    /// The refusal of a transfer in the clear when FTPS is required, nil when it may go ahead.
    var clearDataRefusal: FTPReply? {
        context.options.tls == .required && !protectData ? FTPReply(521, "this relay takes FTPS only: send PROT P first") : nil
    }

    /// After the 150 reply: TLS on the data connection when PROT P was given (the client starts
    /// its handshake once it has the 150, as in vsftpd). False when the handshake failed.
    func secure(_ data: FTPStream) -> Bool {
        guard protectData, let tls = context.tls else { return true }
        do {
            try data.startTLS(tls, timeout: context.options.dataConnectSeconds)
            return true
        } catch {
            log("TLS on the data connection failed: \(error)")
            return false
        }
    }

    private func sendListing(_ argument: String?, long: Bool) -> FTPReply {
        defer { dropDataChannel() }
        var target = folder
        if let argument, !argument.hasPrefix("-") {
            do { target = try FTPVirtualPath.resolve(argument, from: folder) } catch { return FTPReply(553, "\(error)") }
        }
        guard dataChannel != nil else { return FTPReply(425, "send PASV, EPSV, PORT or EPRT first") }
        if let refusal = clearDataRefusal { return refusal }
        guard let data = openDataConnection() else { return FTPReply(425, "cannot open the data connection") }
        defer { data.close() }
        guard reply(FTPReply(150, "here is the listing")) else { return FTPReply(426, "client gone") }
        guard secure(data) else { return FTPReply(522, "TLS on the data connection failed") }
        let entries = context.store.listing(user: userName, folder: target)
        let text = long ? FTPListing.long(entries) : FTPListing.names(entries)
        do { try data.write(Array(text.utf8), timeout: context.options.idleSeconds) } catch {
            return FTPReply(426, "the listing was cut off: \(error)")
        }
        return FTPReply(226, "listing sent")
    }
}
