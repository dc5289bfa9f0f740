import CommandLineOptions
import Foundation
import RelayCore
import Spool

/// `relay review list|approve|reject|undo`: the photos held for a destination whose rule waits
/// for a decision (`relay config add --send approved`), and the decisions on them. A decision is
/// written to the review journal and synced to disk before it is acknowledged, whether relay
/// runs or not; a running relay acts on it within a second, a stopped one when it next starts.
enum ReviewCommand {
    static let spec = CommandSpec(
        name: "review", usage: ["review list [--json]", "review approve|reject|undo ID..."],
        summary: "the photos held for approval (ids from relay review list), and approving, rejecting or undoing a decision",
        sections: [.init(title: "REVIEW OPTIONS", options: [json.spec])],
        notes: [
            "An approved photo is sent to every destination that held it; a rejected one is never sent there and leaves "
                + "the spool once its other destinations have it; undo takes the last decision back while the photo has "
                + "not been sent. Other destinations (those that send all photos, a backup) get every photo at once, whatever "
                + "is decided."
        ])
    static let json = Flag("--json", "list: the held photos as JSON")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        guard let action = args.positionals.first else {
            throw CommandFailure(.usage, "relay review list, or relay review approve|reject|undo ID... (see relay review --help)")
        }
        let ids = Array(args.positionals.dropFirst())
        let kind: ReviewDecision.Kind
        switch action {
        case "list":
            if let extra = ids.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
            return try list(home: home, json: args.has(json))
        case "approve": kind = .approve
        case "reject": kind = .reject
        case "undo": kind = .undo
        default: throw CommandFailure(.usage, "unknown review action '\(action)': list, approve, reject or undo")
        }
        guard !ids.isEmpty else { throw CommandFailure(.usage, "name the photos: relay review \(action) ID... (relay review list)") }
        try decide(kind, ids: ids, home: home)
    }

    /// Every photo of `snapshot` (by default the spool's now) as a reviewer sees it, in the order
    /// relay took them.
    static func photos(home: RelayHome, in snapshot: SpoolSnapshot? = nil) throws -> [HeldPhoto] {
        let rules = Dictionary(
            ((try? ConfigStore(home: home).load().configs) ?? []).map {
                ($0.id.uuidString, (rule: $0.sendRule, selection: $0.selectionPolicy))
            },
            uniquingKeysWith: { first, _ in first })
        let verdicts = try ReviewJournal(home: home).verdicts()
        let snapshot = snapshot ?? Spool.inspect(directory: home.spoolDirectory)
        return (snapshot.queued + snapshot.inFlight).sorted { $0.sequence < $1.sequence }.map {
            HeldPhoto($0, rules: rules, verdict: verdicts[$0.id])
        }
    }

    private static func list(home: RelayHome, json: Bool) throws {
        let held = try photos(home: home).filter(\.isHeld)
        if json { return try JSONOutput.print(held.map(ListedPhoto.init)) }
        guard !held.isEmpty else { return print("no photo is held for review") }
        print("\(held.count) held for review (relay review approve|reject ID...):")
        for photo in held {
            let entry = photo.entry
            let time = entry.capturedAt.formatted(date: .omitted, time: .standard)
            print(
                "  \(entry.id.prefix(8))  \(entry.uploadName)  \(entry.photographer.map { "by \($0)  " } ?? "")"
                    + "\(entry.camera.map { "\($0)  " } ?? "")\(entry.source)  \(time)  "
                    + "held for \(photo.heldFor.joined(separator: ", "))"
                    + (entry.selection.marks.isEmpty ? "" : "  \(entry.selection.marks)"))
        }
    }

    private static func decide(_ kind: ReviewDecision.Kind, ids: [String], home: RelayHome) throws {
        let all = try photos(home: home)
        var chosen: [HeldPhoto] = []
        var sentBefore: [String] = []
        for query in ids {
            let matches = all.filter { $0.entry.id.hasPrefix(query.lowercased()) || $0.entry.uploadName == query }
            if matches.isEmpty, let sent = try sentAndGone(query, home: home) {
                sentBefore.append(sent)
                continue
            }
            guard matches.count == 1, let photo = matches.first else {
                throw CommandFailure(
                    .usage,
                    matches.isEmpty
                        ? "no photo '\(query)' in the spool (relay review list shows those held; a photo leaves the spool once "
                            + "every destination has it or rejected it)"
                        : "'\(query)' names \(matches.count) photos; give more of the id")
            }
            if !chosen.contains(photo) { chosen.append(photo) }
        }
        for line in sentBefore { print(line) }
        guard !chosen.isEmpty else { return }
        try home.createIfNeeded()
        let now = Date()
        try ReviewJournal(home: home).append(chosen.map { ReviewDecision(photo: $0.entry.id, kind: kind, at: now, by: "relay review") })
        for photo in chosen { print(describe(kind, photo)) }
    }

    /// What to say of a photo named `name` that left the spool after its destinations had it
    /// (the history's deliveries of that name); nil when the history knows none.
    private static func sentAndGone(_ name: String, home: RelayHome) throws -> String? {
        let delivered = try HistoryStore(home: home).records.filter { $0.fileName == name && $0.success }
        guard !delivered.isEmpty else { return nil }
        let destinations = Set(delivered.compactMap(\.destination)).sorted()
        return "\(name) was already sent" + (destinations.isEmpty ? "" : " to \(destinations.joined(separator: ", "))")
            + " and has left the spool: nothing changes"
    }

    /// What the decision does, per destination, as the spool stood when it was made.
    static func describe(_ kind: ReviewDecision.Kind, _ photo: HeldPhoto) -> String {
        var parts: [String] = []
        func say(_ labels: [String], _ what: String) {
            if !labels.isEmpty { parts.append("\(what) \(labels.joined(separator: ", "))") }
        }
        switch kind {
        case .approve: say(photo.heldFor + photo.rejectedFor + photo.goingTo, "sent to")
        case .reject: say(photo.heldFor + photo.goingTo, "never sent to")
        case .undo:
            say(photo.rejectedFor.filter { !photo.finallyRejectedFor.contains($0) } + photo.goingTo, "held again for")
            say(photo.finallyRejectedFor, "rejected too long ago to undo (it stands) for")
        }
        say(photo.sentTo, "already sent (nothing changes there) to")
        let verb = ["approve": "approved", "reject": "rejected", "undo": "decision undone on"][kind.rawValue] ?? kind.rawValue
        return "\(verb) \(photo.entry.uploadName)" + (parts.isEmpty ? " (no destination holds it)" : ": " + parts.joined(separator: "; "))
    }

    /// A held photo in `relay review list --json`.
    struct ListedPhoto: Encodable {
        var id: String
        var name: String
        var source: String
        var capturedAt: Date
        var spooledAt: Date
        var heldFor: [String]
        var rating: Int?
        var protected: Bool
        var photographer: String?
        var camera: String?
        var note: String?

        init(_ photo: HeldPhoto) {
            photographer = photo.entry.photographer
            camera = photo.entry.camera
            note = photo.entry.note
            id = photo.entry.id
            name = photo.entry.uploadName
            source = photo.entry.source
            capturedAt = photo.entry.capturedAt
            spooledAt = photo.entry.spooledAt
            heldFor = photo.heldFor
            rating = photo.entry.rating
            protected = photo.entry.selection.protected
        }
    }
}
