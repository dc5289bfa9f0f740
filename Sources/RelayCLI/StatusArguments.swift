import CommandLineOptions
import Foundation
import PTPIP
import Pipeline
import RunEvents
import StatusPage

/// `--status [ADDRESS:]PORT` of `relay run` and `relay capture`: the status page, served from
/// the run's bus for as long as the run lasts. The token comes from `RELAY_STATUS_TOKEN` only:
/// a command line shows in `ps` to every user of the machine.
enum StatusArguments {
    static let status = Option.text(
        "--status", "[ADDRESS:]PORT",
        "serve a live status page, /metrics and /healthz on PORT (loopback unless "
            + "ADDRESS is given); set RELAY_STATUS_TOKEN to require ?token=")

    /// Starts the page when `--status` is given (before the run publishes its first event, so the
    /// page sees it all) and says where it is. A bad address or a port in use is a usage error:
    /// the photographer picks another value.
    static func start(_ args: Arguments, bus: RunEventBus, environment: [String: String]) throws(CommandFailure) -> StatusServer? {
        guard let text = try args.value(status) else { return nil }
        var options: StatusOptions
        do { options = try StatusOptions(argument: text, environment: environment) } catch {
            throw CommandFailure(.usage, error.description)
        }
        options.openEditorPage(environment: environment)
        let server: StatusServer
        do { server = try StatusServer.start(options, bus: bus) } catch { throw CommandFailure(.usage, error.description) }
        let host = server.address.family == .ipv6 ? "[\(server.address.host)]" : server.address.host
        guard let token = options.token, options.tokenIsMadeUp else {
            let asks = options.token == nil ? "" : " (open it with ?token= and the value of \(StatusOptions.tokenVariable))"
            bus.publish(.run(.notice("status page at http://\(host):\(server.address.port)/\(asks); metrics at /metrics", .info)))
            return server
        }
        // The page is on the venue's network: its address with this run's token, once, and as a
        // QR code for a phone when a person watches the terminal.
        let url = "http://\(reachableHost(server.address) ?? host):\(server.address.port)/?token=\(token)"
        bus.publish(
            .run(
                .notice(
                    "status page at \(url) (it listens beyond this machine and \(StatusOptions.tokenVariable) is not set, "
                        + "so this run made a token of its own; /healthz needs none); metrics at /metrics with the same token", .warning)))
        if isatty(STDERR_FILENO) == 1, let code = TerminalQRCode(encoding: url) {
            _ = bus.flush(until: Date().addingTimeInterval(1))  // the address first, then its code
            FileHandle.standardError.write(Data(code.text.utf8))
        }
        return server
    }

    /// Opens the editor's page on `run`'s held photos and says where it is, with its token (and
    /// as a QR code for a phone when a person watches the terminal), when a destination of the
    /// run holds photos for review.
    static func attachReview(_ server: StatusServer?, to relayRun: RelayRun, bus: RunEventBus) {
        guard let server, let token = server.editorToken else { return }
        let run = relayRun.review
        server.attach(
            ReviewDesk(
                held: {
                    run.held().map { photo in
                        ReviewDesk.Photo(
                            id: photo.entry.id, name: photo.entry.uploadName, source: photo.entry.source,
                            capturedAt: photo.entry.capturedAt, heldFor: photo.destinations, rating: photo.entry.rating)
                    }
                },
                version: { run.version }, decide: { ids, kind, by in try run.decide(ids, kind, by: by) },
                file: { run.file($0) }))
        guard run.holdsPhotos else { return }
        let host = server.address.family == .ipv6 ? "[\(server.address.host)]" : server.address.host
        let url = "http://\(reachableHost(server.address) ?? host):\(server.address.port)/review?token=\(token)"
        bus.publish(
            .run(
                .notice(
                    "editor's page at \(url) (approve or reject the held photos; its token is \(StatusOptions.editorTokenVariable)'s "
                        + "or made up for this run, and the status page's viewers cannot decide)", .info)))
        if isatty(STDERR_FILENO) == 1, let code = TerminalQRCode(encoding: url) {
            _ = bus.flush(until: Date().addingTimeInterval(1))
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
