import CommandLineOptions
import FTPReceiver
import Intake
import PTPIP
import RelayCore

/// `relay run --ftp [ADDRESS:]PORT --ftp-user NAME[:VARIABLE]…` and `relay ftp-setup`.
enum FTPArguments: SourceKind {
    /// What a receiver takes unless told otherwise.
    private static let defaults = FTPReceiverOptions(accounts: [])

    static let listen = Option.text("--ftp", "[ADDRESS:]PORT", "listen for camera FTP uploads (2121 is the usual port; 21 needs root)")
    static let user = RepeatedOption.texts(
        "--ftp-user", "NAME[:VAR]",
        "a login; its password is in $RELAY_FTP_PASSWORD, or in $VAR (never on the "
            + "command line); each user has a folder of its own; may be repeated")
    static let maxSize = Option.size("--ftp-max-size", "a bigger photo is refused", default: defaults.maxFileBytes, in: 1...Int64.max)
    static let sessions = Option.integer("--ftp-sessions", "N", "connections at once", default: defaults.maxSessions, in: 1...256)
    static let idle = Option.duration("--ftp-idle", "closes a silent connection", default: defaults.idleSeconds, in: 1...86_400)
    static let keepPartial = Option.duration(
        "--ftp-keep-partial", "keeps a cut-off upload for a REST/APPE resume", default: defaults.partialKeepSeconds, in: 1...7 * 86_400)
    static let tls = Option<FTPTLSMode>.value(
        "--ftp-tls", "MODE",
        "off, optional or required: explicit FTPS (AUTH TLS, PROT P) with a certificate made on "
            + "first start in $RELAY_HOME/ftp/tls; its SHA-256 fingerprint is printed, for approving it on the camera",
        default: defaults.tls, defaultText: defaults.tls.rawValue
    ) { text throws(CommandFailure) in
        guard let mode = FTPTLSMode(rawValue: text.lowercased()) else {
            throw CommandFailure(.usage, FTPReceiverError.badTLSMode(text).description)
        }
        return mode
    }

    /// The receiver's options, in `relay run` and `relay ftp-setup`.
    static let options: [OptionSpec] = [
        listen.spec, user.spec, maxSize.spec, sessions.spec, idle.spec, keepPartial.spec, tls.spec,
    ]

    /// The CAMERA FTP part of `relay run --help`.
    static let section = CommandSpec.Section(
        title: "CAMERA FTP (relay run --ftp; --ftp, --camera and --folder may be combined)", options: options,
        notes: [
            "A photo is answered 226 only once it is in the spool; RAW and video are answered 226 and skipped (--include-raw "
                + "takes RAW); an upload cut off is kept for a REST/APPE resume (--ftp-keep-partial)."
        ])

    static let setupSpec = CommandSpec(
        name: "ftp-setup",
        usage: ["ftp-setup [--ftp [ADDRESS:]PORT] [--ftp-tls MODE] --ftp-user NAME[:VARIABLE]..."],
        summary: "print what to type into the camera's FTP menu for relay run --ftp, without starting it",
        sections: [
            .init(
                title: "FTP-SETUP OPTIONS",
                options: [setupListen.spec] + options.filter { $0.name != listen.name } + [CameraSourceKind.includeRAW.spec])
        ])

    /// `relay ftp-setup` has a port to show when none is given.
    private static let setupListen = Option.text(
        listen.name, listen.spec.placeholder, listen.spec.help, default: "\(FTPReceiverOptions.defaultPort)")

    static var sourceOption: OptionSpec { listen.spec }

    /// The receiver, none without `--ftp`. Passwords come from the environment only.
    static func settings(_ args: Arguments, environment: [String: String]) throws(CommandFailure) -> [any SourceSetting] {
        guard let listen = try args.value(listen) else {
            if args.gave(user.spec) {
                throw CommandFailure(.usage, "--ftp-user is for the FTP receiver: use it with --ftp PORT")
            }
            return []
        }
        return [try options(listen: listen, args, environment: environment)]
    }

    /// `relay ftp-setup [--ftp …] --ftp-user …`: what to type into the camera, without starting.
    static func runSetup(_ arguments: [String], home: RelayHome, environment: [String: String]) throws {
        let args = try Arguments(arguments, setupSpec.options, command: setupSpec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let options = try options(
            listen: try args.required(setupListen, hint: "give [ADDRESS:]PORT, e.g. --ftp 2121"), args, environment: environment)
        var fingerprint: String?
        if options.tls != .off {
            do { fingerprint = try FTPSource.certificateFingerprint(home: home) } catch {
                throw CommandFailure(.stateFile, error.description)
            }
        }
        print(FTPSetupText.make(options: options, port: options.port, addresses: options.setupAddresses, tlsFingerprint: fingerprint))
    }

    private static func options(listen: String, _ args: Arguments, environment: [String: String]) throws(CommandFailure)
        -> FTPReceiverOptions
    {
        let maxFileBytes = try args.value(maxSize) ?? defaults.maxFileBytes
        let maxSessions = try args.value(sessions) ?? defaults.maxSessions
        let idleSeconds = try args.value(idle) ?? defaults.idleSeconds
        let partialKeepSeconds = try args.value(keepPartial) ?? defaults.partialKeepSeconds
        let tlsMode = try args.value(tls) ?? defaults.tls
        let users = try args.values(user)
        do {
            let address = try FTPReceiverOptions.parseListenAddress(listen)
            var accounts: [FTPAccount] = []
            for spec in users {
                let account = try FTPAccount.parse(spec, environment: environment)
                guard !accounts.contains(where: { $0.name == account.name }) else { throw FTPReceiverError.duplicateUser(account.name) }
                accounts.append(account)
            }
            guard !accounts.isEmpty else { throw FTPReceiverError.noUsers }
            var options = FTPReceiverOptions(
                host: address.host, port: address.port, accounts: accounts, includeRAW: args.has(CameraSourceKind.includeRAW),
                maxSessions: maxSessions, maxFileBytes: maxFileBytes, idleSeconds: idleSeconds, partialKeepSeconds: partialKeepSeconds,
                tls: tlsMode)
            if options.setupAddresses.isEmpty {
                // Listening on every address: the camera needs one of this machine's.
                options.setupAddresses = NetworkInterfaces.ipv4().map { AddressRange.text(of: $0.address) }
            }
            return options
        } catch let error as FTPReceiverError {
            throw CommandFailure(.usage, error.description)
        } catch {
            throw CommandFailure(.usage, "\(error)")
        }
    }
}
