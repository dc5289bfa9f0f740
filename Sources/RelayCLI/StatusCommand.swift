import CommandLineOptions
import Foundation
import RelayCore
import Spool

/// `relay status [--json]`: what the spool holds, read without disturbing a running relay.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "status", usage: ["status [--json]"], summary: "what the spool holds: queued, in flight, failed",
        sections: [.init(title: "STATUS OPTIONS", options: [json.spec])])
    static let json = Flag("--json", "the spool's entries and problems as JSON")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        var snapshot = Spool.inspect(directory: home.spoolDirectory)
        var held: [String: Int] = [:]
        var heldFor: [String: [String]] = [:]
        for photo in try ReviewCommand.photos(home: home, in: snapshot) where photo.isHeld {
            for label in photo.heldFor { held[label, default: 0] += 1 }
            heldFor[photo.entry.id] = photo.heldFor
        }
        snapshot.held = held
        // A destination waits for a held photo's decision, not for a run to send it.
        snapshot.waiting = PhotoDestinations.waiting(
            (snapshot.queued + snapshot.inFlight).compactMap { entry in
                entry.destinations.map { map in
                    (entry.uploadName, map.filter { !(heldFor[entry.id] ?? []).contains($0.value.label) })
                }
            }, outside: [])
        if args.has(json) { return try JSONOutput.print(snapshot) }
        print(
            "spool \(home.spoolDirectory.path): \(snapshot.queued.count) queued, \(snapshot.inFlight.count) in flight, \(snapshot.failed.count) failed"
        )
        if !held.isEmpty {
            let counts = held.sorted { $0.key < $1.key }.map { "\($0.value) for \($0.key)" }.joined(separator: ", ")
            print("held for review: \(counts) (relay review list)")
        }
        if !snapshot.waiting.isEmpty {
            print("\nwaiting, per destination (relay run --config ID sends them; relay drop --destination ID forgets them):")
        }
        for destination in snapshot.waiting { print("  " + DropCommand.describe(destination)) }
        section("in flight", snapshot.inFlight, heldFor: heldFor)
        section("queued", snapshot.queued, heldFor: heldFor)
        section("failed (relay retry ID to send again)", snapshot.failed, heldFor: [:])
        for problem in snapshot.problems { print("problem: \(problem)") }
    }

    /// `heldFor`: by photo id, the destinations holding it for review (shown as held, not queued).
    private static func section(_ title: String, _ entries: [SpoolEntry], heldFor: [String: [String]]) {
        guard !entries.isEmpty else { return }
        print("\n\(title):")
        for entry in entries {
            var line = "  \(entry.id.prefix(8))  \(entry.uploadName)  \(entry.sizeText)  attempts \(entry.attempts)"
            if let status = entry.lastStatusCode { line += "  HTTP \(status)" }
            if let error = entry.lastError { line += "  \(error)" }
            print(line)
            for (id, progress) in (entry.destinations ?? [:]).sorted(by: { $0.value.label < $1.value.label }) {
                let state = heldFor[entry.id]?.contains(progress.label) == true ? "held for review" : progress.state.rawValue
                var detail = "      → \(progress.label) (\(id.prefix(8))): \(state), attempts \(progress.attempts)"
                if progress.state != .delivered, let error = progress.lastError { detail += "  \(error)" }
                print(detail)
            }
        }
    }
}
