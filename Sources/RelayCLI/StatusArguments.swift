import CommandLineOptions
import Foundation
import PTPIP
import Pipeline
import RunEvents
import StatusPage

/// `--status [ADDRESS:]PORT` of `relay run` and `relay capture`: the status page, served from
/// the run's bus for as long as the run lasts, with the editor's page and the venue wall beside
/// it. Tokens come from the environment only (`RELAY_STATUS_TOKEN`, `RELAY_EDITOR_TOKEN`,
/// `RELAY_WALL_TOKEN`) or are made up for the run: a command line shows in `ps` to every user of
/// the machine.
enum StatusArguments {
    static let status = Option.text(
        "--status", "[ADDRESS:]PORT",
        "serve a live status page, /metrics and /healthz on PORT (loopback unless "
            + "ADDRESS is given); set RELAY_STATUS_TOKEN to require ?token=; the editor's page (/review) and the venue "
            + "wall (/wall) are served beside it, each with a token of its own")
    static let guestLink = Option.text(
        "--guest-link", "URL", "with --status: the guests' gallery link, shown as a QR code on the venue wall (/wall)")

    /// Starts the page when `--status` is given (before the run publishes its first event, so the
    /// page sees it all) and says where it is. A bad address or a port in use is a usage error:
    /// the photographer picks another value.
    static func start(_ args: Arguments, bus: RunEventBus, environment: [String: String]) throws(CommandFailure) -> StatusServer? {
        guard let text = try args.value(status) else {
            if args.gave(guestLink.spec) { throw CommandFailure(.usage, "--guest-link goes with --status (the wall is served there)") }
            return nil
        }
        var options: StatusOptions
        do { options = try StatusOptions(argument: text, environment: environment) } catch {
            throw CommandFailure(.usage, error.description)
        }
        options.openEditorPage(environment: environment)
        options.openWall(environment: environment, guestLink: try args.value(guestLink))
        let server: StatusServer
        do { server = try StatusServer.start(options, bus: bus) } catch { throw CommandFailure(.usage, error.description) }
        guard let token = options.token, options.tokenIsMadeUp else {
            let asks = options.token == nil ? "" : " (open it with ?token= and the value of \(StatusOptions.tokenVariable))"
            bus.publish(.run(.notice("status page at \(link(server, "/", token: nil))\(asks); metrics at /metrics", .info)))
            return server
        }
        // The page is on the venue's network: its address with this run's token, once, and as a
        // QR code for a phone when a person watches the terminal.
        announce(
            link(server, "/", token: token), server: server, bus: bus, severity: .warning,
            saying: "status page at %@ (it listens beyond this machine and \(StatusOptions.tokenVariable) is not set, "
                + "so this run made a token of its own; /healthz needs none); metrics at /metrics with the same token")
        return server
    }

    /// Hands the pages that need the run's spool what they need once it is ready (the decisions
    /// made while relay was stopped applied): the editor's
    /// page its held photos and decisions, the venue wall the photos approved. Says where the
    /// editor's page is (when a destination of the run holds photos) and where the wall is.
    static func attachRun(_ server: StatusServer?, to relayRun: RelayRun, bus: RunEventBus) {
        guard let server else { return }
        let run = relayRun.review
        let wall = server.attach(
            ReviewDesk(
                held: {
                    run.held().map { photo in
                        ReviewDesk.Photo(
                            id: photo.entry.id, name: photo.entry.uploadName, source: photo.entry.source,
                            capturedAt: photo.entry.capturedAt, heldFor: photo.destinations, rating: photo.entry.rating,
                            protected: photo.entry.selection.protected, photographer: photo.entry.photographer,
                            camera: photo.entry.camera)
                    }
                },
                version: { run.version }, decide: { ids, kind, by in try run.decide(ids, kind, by: by) },
                file: { run.file($0) },
                pictures: { run.pictures($0).map { ReviewDesk.Pictures(original: $0.original, renditions: $0.renditions) } }),
            holding: run.holding, selects: run.selects)
        if let wall { run.onApproval(wall) }
        if run.holdsPhotos, let token = server.editorToken {
            announce(
                link(server, "/review", token: token), server: server, bus: bus, severity: .info,
                saying: "editor's page at %@ (approve or reject the held photos; its token is \(StatusOptions.editorTokenVariable)'s "
                    + "or made up for this run, and the status page's viewers cannot decide)")
        }
        if let token = server.wallToken {
            announce(
                link(server, "/wall", token: token), server: server, bus: bus, severity: .info,
                saying: "venue wall at %@ (full screen on a projector: the newest "
                    + (run.holdsPhotos ? "approved" : "delivered") + " photos; its token opens nothing else)")
        }
    }

    /// The page at `path` of `server`, with `token`, at an address a phone on the network can open.
    private static func link(_ server: StatusServer, _ path: String, token: String?) -> String {
        let host = server.address.family == .ipv6 ? "[\(server.address.host)]" : server.address.host
        return "http://\(reachableHost(server.address) ?? host):\(server.address.port)\(path)" + (token.map { "?token=\($0)" } ?? "")
    }

    /// Says `sentence` with `url` in place of `%@`, then, when a person watches the terminal and
    /// the page listens beyond this machine, draws the address as a QR code for a phone.
    private static func announce(_ url: String, server: StatusServer, bus: RunEventBus, severity: Severity, saying sentence: String) {
        bus.publish(.run(.notice(sentence.replacingOccurrences(of: "%@", with: url), severity)))
        if isatty(STDERR_FILENO) == 1, !server.address.isLoopback, let code = QRCode(encoding: url) {
            _ = bus.flush(until: Date().addingTimeInterval(1))  // the address first, then its code
            FileHandle.standardError.write(Data(code.text.utf8))
        }
    }

    /// An address of this machine a phone on its network can open, when the page listens on
    /// all of them (0.0.0.0, ::); nil otherwise.
    private static func reachableHost(_ address: StatusAddress) -> String? {
        guard address.isWildcard else { return nil }
        return NetworkInterfaces.ipv4().first.map { AddressRange.text(of: $0.address) }
    }
}
