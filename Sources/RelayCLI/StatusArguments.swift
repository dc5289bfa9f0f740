import RunEvents
import StatusPage

/// `--status [ADDRESS:]PORT` of `relay run` and `relay capture`: the status page, served from
/// the run's bus for as long as the run lasts. The token comes from `RELAY_STATUS_TOKEN` only:
/// a command line shows in `ps` to every user of the machine.
enum StatusArguments {
    static let optionName = "--status"

    /// Starts the page when `--status` is given (before the run publishes its first event, so the
    /// page sees it all) and says where it is. A bad address or a port in use is a usage error:
    /// the photographer picks another value.
    static func start(_ args: Arguments, bus: RunEventBus, environment: [String: String]) throws(CommandFailure) -> StatusServer? {
        guard let text = args.value(optionName) else { return nil }
        let options: StatusOptions
        do { options = try StatusOptions(argument: text, environment: environment) } catch {
            throw CommandFailure(.usage, error.description)
        }
        let server: StatusServer
        do { server = try StatusServer.start(options, bus: bus) } catch { throw CommandFailure(.usage, error.description) }
        let host = server.address.family == .ipv6 ? "[\(server.address.host)]" : server.address.host
        let token = options.token == nil ? "" : " (open it with ?token= and the value of \(StatusOptions.tokenVariable))"
        bus.publish(.run(.notice("status page at http://\(host):\(server.address.port)/\(token); metrics at /metrics", .info)))
        return server
    }
}
