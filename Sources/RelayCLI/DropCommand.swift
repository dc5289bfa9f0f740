import CommandLineOptions
import Foundation
import RelayCore
import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `relay drop --destination ID|NOTE [--yes]`: stops waiting to deliver spooled photos to one
/// destination (a backup that is gone for good), after saying which photos and asking. A photo
/// no other destination waits for then leaves the spool.
enum DropCommand {
    static let spec = CommandSpec(
        name: "drop", usage: ["drop --destination ID|NOTE [--yes]"],
        summary: "stop waiting to send spooled photos to one destination (asks first); the others still get them",
        sections: [
            .init(
                title: "DROP OPTIONS",
                options: [destination.spec, yes.spec])
        ])
    static let destination = Option.text(
        "--destination", "ID|NOTE", "the destination photos wait for (config id, id prefix or note; see relay status)")
    /// Also in `relay config remove --release`.
    static let yes = Flag("--yes", "do not ask (needed when stdin is not a terminal)")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        guard let query = try args.value(destination) else {
            throw CommandFailure(.usage, "name the destination: relay drop --destination ID|NOTE (relay status lists them)")
        }
        try release(query, home: home, confirmed: args.has(yes), action: "relay drop --destination \(query) --yes")
    }

    /// Releases what photos owe the destination `query` names, once the user agreed (`confirmed`,
    /// or a yes typed on a terminal). Prints what happened; nothing when no photo waits for it.
    static func release(_ query: String, home: RelayHome, confirmed: Bool, action: String) throws {
        let waiting = Spool.inspect(directory: home.spoolDirectory).waiting.filter { destination in
            PhotoDestinations.matches(query, id: destination.id, progress: DestinationProgress(label: destination.label))
        }
        guard !waiting.isEmpty else {
            print("no photo in the spool waits for '\(query)'")
            return
        }
        if waiting.count > 1 {
            throw CommandFailure(
                .usage,
                "'\(query)' names several destinations: "
                    + waiting.map { "\($0.label) (\($0.id.prefix(8).lowercased()))" }.joined(separator: ", ") + "; give its config id")
        }
        let destination = waiting[0]
        print(describe(destination) + "; they will not be sent there")
        if !confirmed {
            guard isatty(STDIN_FILENO) == 1 else {
                throw CommandFailure(.usage, "nothing was changed: to release them, run \(action)")
            }
            Swift.print("release them? [y/N] ", terminator: "")
            guard let answer = readLine(), ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                print("nothing was changed")
                return
            }
        }
        let spool: Spool
        do {
            spool = try Spool(directory: home.spoolDirectory)
        } catch {
            if case .locked = error { throw CommandFailure(.busy, error.description + " (stop it first: a run holds the spool)") }
            throw CommandFailure(.stateFile, error.description)
        }
        let released: [SpoolEntry]
        do { released = try spool.release(destination: destination.id) } catch { throw CommandFailure(.stateFile, error.description) }
        let stillQueued = Set(spool.snapshot().queued.map(\.id))
        let left = released.filter { !stillQueued.contains($0.id) }.count
        print(
            "released \(released.count) photo\(released.count == 1 ? "" : "s") for \(destination.label)"
                + (left > 0 ? "; \(left) left the spool (no other destination waits for them)" : ""))
    }

    /// "3 photos wait for 'backup' (config 1a2b3c4d): A.JPG, B.JPG, C.JPG".
    static func describe(_ destination: WaitingDestination) -> String {
        let count = destination.photos.count
        return "\(count) photo\(count == 1 ? "" : "s") wait\(count == 1 ? "s" : "") for '\(destination.label)' "
            + "(config \(destination.id.prefix(8).lowercased())): \(destination.someNames)"
    }
}
