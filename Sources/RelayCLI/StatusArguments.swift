import CommandLineOptions
import Foundation
import PTPIP
import Pipeline
import RelayCore
import RunEvents
import Spool
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
    static let wallCredit = Flag(
        "--wall-credit", "with --status: the venue wall shows who shot each photo (and its caption) over the photo's corner")
    static let wallLogo = Option.text(
        "--wall-logo", "FILE",
        "with --status: the event's logo (PNG, JPEG, WebP or SVG, at most 2 MB) in a corner of the venue wall, served by relay")
    static let wallSeconds = Option.integer(
        "--wall-seconds", "N", "with --status: seconds each photo shows on the venue wall", default: WallOptions.defaultSeconds,
        in: WallOptions.secondsRange)
    /// The wall's options, each of which needs `--status`.
    static let wallOptions: [OptionSpec] = [guestLink.spec, wallCredit.spec, wallLogo.spec, wallSeconds.spec]

    /// Starts the page when `--status` is given (before the run publishes its first event, so the
    /// page sees it all) and says where it is. A bad address or a port in use is a usage error:
    /// the photographer picks another value.
    static func start(_ args: Arguments, bus: RunEventBus, environment: [String: String]) throws(CommandFailure) -> StatusServer? {
        guard let text = try args.value(status) else {
            if let given = wallOptions.first(where: args.gave) {
                throw CommandFailure(.usage, "\(given.name) goes with --status (the wall is served there)")
            }
            return nil
        }
        var options: StatusOptions
        do { options = try StatusOptions(argument: text, environment: environment) } catch {
            throw CommandFailure(.usage, error.description)
        }
        options.openEditorPage(environment: environment)
        options.openWall(environment: environment, guestLink: try args.value(guestLink))
        options.wall = try wall(args)
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

    /// Credit, logo and pace of the wall; the logo is read and checked now, so that a wrong
    /// file is said before the event, not found on its screen.
    private static func wall(_ args: Arguments) throws(CommandFailure) -> WallOptions {
        var options = WallOptions(credit: args.has(wallCredit), seconds: try args.value(wallSeconds) ?? WallOptions.defaultSeconds)
        if let path = try args.value(wallLogo) {
            do { options.logo = try WallOptions.Logo(contentsOf: path) } catch { throw CommandFailure(.usage, "--wall-logo: \(error)") }
        }
        return options
    }

    /// Hands the pages that need the run's spool what they need once it is ready (the decisions
    /// made while relay was stopped applied): the editor's
    /// page its held photos and decisions, the venue wall the photos approved. Says where the
    /// editor's page is (when a destination of the run holds photos) and where the wall is.
    static func attachRun(_ server: StatusServer?, to relayRun: RelayRun, bus: RunEventBus) {
        guard let server else { return }
        let run = relayRun.review
        var desk = ReviewDesk(
            photos: { run.desk().map { deskPhoto($0, caption: run.caption(of: $0.entry.id)) } },
            version: { run.version }, decide: { ids, kind, by in try run.decide(ids, kind, by: by) },
            file: { run.file($0) })
        desk.pictures = { run.pictures($0).map { ReviewDesk.Pictures(original: $0.original, renditions: $0.renditions) } }
        desk.caption = { id, caption, by in try run.setCaption(id, caption, by: by) }
        let wall = server.attach(desk, holding: run.holding, selects: run.selects)
        if let wall { run.onApproval(wall) }
        server.describeWall(with: { run.caption(of: $0)?.caption }, changes: { run.version })
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

    /// A photo on the desk as the editor's page lists it.
    private static func deskPhoto(_ photo: DeskPhoto, caption: PhotoCaption?) -> ReviewDesk.Photo {
        let entry = photo.entry
        var listed = ReviewDesk.Photo(
            id: entry.id, name: entry.uploadName, source: entry.source, capturedAt: entry.capturedAt, heldFor: photo.destinations,
            rating: entry.rating, protected: entry.selection.protected, photographer: entry.photographer, camera: entry.camera)
        listed.state = photo.state
        listed.selected = (entry.rating ?? 0) > 0 || entry.selection.protected
        listed.undoableUntil = photo.undoableUntil
        listed.caption = caption.flatMap { $0.caption.isEmpty ? nil : $0.caption }
        listed.title = caption.flatMap { $0.title.isEmpty ? nil : $0.title }
        return listed
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
