import CommandLineOptions
import HTTPInbox
import Intake
import RelayCore

/// `relay run --http [ADDRESS:]PORT --http-user NAME[:VARIABLE]…`: the desk's HTTP inbox.
enum HTTPInboxSourceKind: SourceKind {
    /// What an inbox takes unless told otherwise.
    private static let defaults = HTTPInboxOptions(logins: [])

    static let listen = Option.text(
        "--http", "[ADDRESS:]PORT", "take photos from other relays, phones and scripts over HTTP (POST /upload, PUT /upload/NAME)")
    static let user = RepeatedOption.texts(
        "--http-user", "NAME[:VAR]",
        "a login of the HTTP inbox; its token is in $RELAY_HTTP_TOKEN, or in $VAR (never on the command line); the name is the "
            + "photographer the desk credits; may be repeated")
    static let maxSize = Option.size(
        "--http-max-size", "a bigger photo is refused (413)", default: defaults.maxBodyBytes, in: 1...Int64.max)
    static let sessions = Option.integer("--http-sessions", "N", "HTTP connections at once", default: defaults.maxSessions, in: 1...1024)

    static let options: [OptionSpec] = [listen.spec, user.spec, maxSize.spec, sessions.spec]
    static var sourceOption: OptionSpec { listen.spec }

    /// The HTTP INBOX part of `relay run --help`.
    static let section = CommandSpec.Section(
        title: "HTTP INBOX (relay run --http; a desk taking photos from field relays and phones)", options: options,
        notes: [
            "A photo is answered 201 only once it is committed to the spool and fsynced; a request with an Idempotency-Key "
                + "already answered gets that answer again (200) and adds no photo. Plain HTTP: put a TLS proxy in front beyond "
                + "a trusted network."
        ])

    /// The inbox, none without `--http`. Tokens come from the environment only.
    static func settings(_ args: Arguments, environment: [String: String]) throws(CommandFailure) -> [any SourceSetting] {
        guard let listen = try args.value(listen) else {
            if args.gave(user.spec) { throw CommandFailure(.usage, "--http-user is for the HTTP inbox: use it with --http PORT") }
            return []
        }
        do {
            guard let address = ListenAddress.parse(listen) else { throw HTTPInboxError.badListenAddress(listen) }
            var logins: [HTTPInboxLogin] = []
            for spec in try args.values(user) {
                let login = try HTTPInboxLogin.parse(spec, environment: environment)
                guard !logins.contains(where: { $0.name == login.name }) else { throw HTTPInboxError.duplicateUser(login.name) }
                logins.append(login)
            }
            guard !logins.isEmpty else { throw HTTPInboxError.noUsers }
            return [
                HTTPInboxOptions(
                    host: address.host, port: address.port, logins: logins, includeRAW: args.has(CameraSourceKind.includeRAW),
                    maxSessions: try args.value(sessions) ?? defaults.maxSessions,
                    maxBodyBytes: try args.value(maxSize) ?? defaults.maxBodyBytes)
            ]
        } catch let error as HTTPInboxError {
            throw CommandFailure(.usage, error.description)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(.usage, "\(error)")
        }
    }
}
