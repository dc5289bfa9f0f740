import FTPReceiver
import PTPIP
import RelayCore

/// `relay run --ftp [ADDRESS:]PORT --ftp-user NAME[:VARIABLE]…` and `relay ftp-setup`.
enum FTPArguments {
    static let optionNames: Set<String> = ["--ftp", "--ftp-user", "--ftp-max-size", "--ftp-sessions", "--ftp-idle", "--ftp-tls", "--ftp-keep-partial"]

    /// The receiver's options, nil without `--ftp`. Passwords come from the environment only.
    static func spec(_ args: Arguments, environment: [String: String]) throws(CommandFailure) -> FTPReceiverOptions? {
        guard let listen = try args.value("--ftp") else {
            if !args.all("--ftp-user").isEmpty { throw CommandFailure(.usage, "--ftp-user is for the FTP receiver: use it with --ftp PORT") }
            return nil
        }
        return try options(listen: listen, args, environment: environment)
    }

    /// `relay ftp-setup [--ftp …] --ftp-user …`: what to type into the camera, without starting.
    static func runSetup(_ arguments: [String], home: RelayHome, environment: [String: String]) throws {
        let args = try Arguments(arguments, options: optionNames, flags: ["--include-raw"])
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let options = try options(listen: try args.value("--ftp") ?? "\(FTPReceiverOptions.defaultPort)", args, environment: environment)
        var fingerprint: String?
        if options.tls != .off {
            do { fingerprint = try FTPSource.certificateFingerprint(home: home) } catch { throw CommandFailure(.stateFile, error.description) }
        }
        print(FTPSetupText.make(options: options, port: options.port, addresses: options.setupAddresses, tlsFingerprint: fingerprint))
    }

    private static func options(listen: String, _ args: Arguments, environment: [String: String]) throws(CommandFailure) -> FTPReceiverOptions {
        let maxSize = try args.bytes("--ftp-max-size")
        let sessions = try args.integer("--ftp-sessions", in: 1...256)
        let idle = try args.seconds("--ftp-idle", minimum: 1, maximum: 86_400)
        let keepPartial = try args.seconds("--ftp-keep-partial", minimum: 1, maximum: 7 * 86_400)
        let tlsText = try args.value("--ftp-tls")
        do {
            let tls = try tlsText.map { (text: String) throws(FTPReceiverError) -> FTPTLSMode in
                guard let mode = FTPTLSMode(rawValue: text.lowercased()) else { throw .badTLSMode(text) }
                return mode
            } ?? .off
            let address = try FTPReceiverOptions.parseListenAddress(listen)
            var accounts: [FTPAccount] = []
            for spec in args.all("--ftp-user") {
                let account = try FTPAccount.parse(spec, environment: environment)
                guard !accounts.contains(where: { $0.name == account.name }) else { throw FTPReceiverError.duplicateUser(account.name) }
                accounts.append(account)
            }
            guard !accounts.isEmpty else { throw FTPReceiverError.noUsers }
            var options = FTPReceiverOptions(host: address.host, port: address.port, accounts: accounts, includeRAW: args.has("--include-raw"))
            if let maxSize { options.maxFileBytes = maxSize }
            if let sessions { options.maxSessions = sessions }
            if let idle { options.idleSeconds = idle }
            if let keepPartial { options.partialKeepSeconds = keepPartial }
            options.tls = tls
            if options.setupAddresses.isEmpty {
                // Listening on every address: the camera needs one of this machine's.
                options.setupAddresses = NetworkInterfaces.ipv4().map { address in
                    (0..<4).map { String((address.address >> (24 - 8 * $0)) & 0xFF) }.joined(separator: ".")
                }
            }
            return options
        } catch let error as FTPReceiverError {
            throw CommandFailure(.usage, error.description)
        } catch {
            throw CommandFailure(.usage, "\(error)")
        }
    }
}
