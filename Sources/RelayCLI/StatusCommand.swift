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
        let snapshot = Spool.inspect(directory: home.spoolDirectory)
        if args.has(json) { return try JSONOutput.print(snapshot) }
        print(
            "spool \(home.spoolDirectory.path): \(snapshot.queued.count) queued, \(snapshot.inFlight.count) in flight, \(snapshot.failed.count) failed"
        )
        if !snapshot.waiting.isEmpty {
            print("\nwaiting, per destination (relay run --config ID sends them; relay drop --destination ID forgets them):")
        }
        for destination in snapshot.waiting { print("  " + DropCommand.describe(destination)) }
        section("in flight", snapshot.inFlight)
        section("queued", snapshot.queued)
        section("failed (relay retry ID to send again)", snapshot.failed)
        for problem in snapshot.problems { print("problem: \(problem)") }
    }

    private static func section(_ title: String, _ entries: [SpoolEntry]) {
        guard !entries.isEmpty else { return }
        print("\n\(title):")
        for entry in entries {
            var line = "  \(entry.id.prefix(8))  \(entry.uploadName)  \(entry.sizeText)  attempts \(entry.attempts)"
            if let status = entry.lastStatusCode { line += "  HTTP \(status)" }
            if let error = entry.lastError { line += "  \(error)" }
            print(line)
            for (id, progress) in (entry.destinations ?? [:]).sorted(by: { $0.value.label < $1.value.label }) {
                var detail = "      → \(progress.label) (\(id.prefix(8))): \(progress.state.rawValue), attempts \(progress.attempts)"
                if progress.state != .delivered, let error = progress.lastError { detail += "  \(error)" }
                print(detail)
            }
        }
    }
}
