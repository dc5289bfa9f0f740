import CommandLineOptions
import Foundation
import PTPIP
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
        let options: StatusOptions
        do { options = try StatusOptions(argument: text, environment: environment) } catch {
            throw CommandFailure(.usage, error.description)
        }
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

    /// An address of this machine a phone on its network can open, when the page listens on
    /// all of them (0.0.0.0, ::); nil otherwise.
    private static func reachableHost(_ address: StatusAddress) -> String? {
        guard address.isWildcard else { return nil }
        return NetworkInterfaces.ipv4().first.map { AddressRange.text(of: $0.address) }
    }
}
