import CommandLineOptions
import Foundation
import RelayCore
import Spool

/// `relay retry [--all | ID...] [--destination ID|NOTE]`: moves photos from `spool/failed/` back
/// into the queue, e.g. after the config was fixed. The next `relay run` sends them, to the
/// destinations that refused them (or only to `--destination`).
enum RetryCommand {
    static let spec = CommandSpec(
        name: "retry", usage: ["retry [--all | ID...] [--destination ID|NOTE]"],
        summary: "put failed photos back in the queue (ids from relay status); the next relay run sends them",
        sections: [
            .init(
                title: "RETRY OPTIONS",
                options: [all.spec, destination.spec])
        ])
    static let all = Flag("--all", "every failed photo")
    static let destination = Option.text(
        "--destination", "ID|NOTE", "send them again only to this config (by default, to each that refused them)")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if args.positionals.isEmpty && !args.has(all) {
            throw CommandFailure(.usage, "name the photos to retry (ids from relay status) or give --all")
        }
        let spool: Spool
        do {
            spool = try Spool(directory: home.spoolDirectory)
        } catch {
            if case .locked = error { throw CommandFailure(.busy, error.description) }
            throw CommandFailure(.stateFile, error.description)
        }
        let moved: [SpoolEntry]
        let destination = try args.value(destination)
        do { moved = try spool.retryFailed(ids: args.has(all) ? [] : args.positionals, destination: destination) } catch {
            throw CommandFailure(.stateFile, error.description)
        }
        print(moved.isEmpty ? "no failed photos matched" : "queued again: " + moved.map(\.uploadName).joined(separator: ", "))
    }
}
