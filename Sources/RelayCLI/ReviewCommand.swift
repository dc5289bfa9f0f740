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
        name: "review", usage: ["review list [--json]", "review approve|reject|undo ID...", #"review caption ID "TEXT" [--title TITLE]"#],
        summary: "the photos held for approval (ids from relay review list), approving, rejecting or undoing a decision, "
            + "and the editor's caption of a photo",
        sections: [.init(title: "REVIEW OPTIONS", options: [json.spec, title.spec])],
        notes: [
            "An approved photo is sent to every destination that held it; a rejected one is never sent there and leaves "
                + "the spool once its other destinations have it; undo takes the last decision back while the photo has "
                + "not been sent. Other destinations (those that send all photos, a backup) get every photo at once, whatever "
                + "is decided.",
            "A caption replaces the stamp template's (or fills its {caption}) in the photo sent to every destination that "
                + "has not sent it yet; \"\" clears it. It is synced before relay answers, whether relay runs or not.",
        ])
    static let json = Flag("--json", "list: the held photos as JSON")
    static let title = Option.text("--title", "TITLE", "caption: the photo's title too (IPTC object name, XMP dc:title)")

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
        case "caption": return try caption(ids, title: try args.value(title), home: home)
        default: throw CommandFailure(.usage, "unknown review action '\(action)': list, approve, reject, undo or caption")
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
        let captions = try ReviewJournal(home: home).captions()
        if json { return try JSONOutput.print(held.map { ListedPhoto($0, caption: captions[$0.entry.id]) }) }
        guard !held.isEmpty else { return print("no photo is held for review") }
        print("\(held.count) held for review (relay review approve|reject ID...):")
        for photo in held {
            let entry = photo.entry
            let time = entry.capturedAt.formatted(date: .omitted, time: .standard)
            print(
                "  \(entry.id.prefix(8))  \(entry.uploadName)  \(entry.photographer.map { "by \($0)  " } ?? "")"
                    + "\(entry.camera.map { "\($0)  " } ?? "")\(entry.source)  \(time)  "
                    + "held for \(photo.heldFor.joined(separator: ", "))"
                    + (entry.selection.marks.isEmpty ? "" : "  \(entry.selection.marks)")
                    + (captions[entry.id].map { "  “\([$0.title, $0.caption].filter { !$0.isEmpty }.joined(separator: " — "))”" } ?? ""))
        }
    }

    /// `relay review caption ID "TEXT" [--title TITLE]`: the editor's caption, journaled and
    /// synced; says where it goes and where it changes nothing, as the spool stands.
    private static func caption(_ words: [String], title: String?, home: RelayHome) throws {
        guard let query = words.first, words.count == 2 else {
            throw CommandFailure(.usage, #"name one photo and its caption: relay review caption ID "TEXT" [--title TITLE]"#)
        }
        let caption: PhotoCaption
        do { caption = try PhotoCaption(caption: words[1], title: title ?? "") } catch { throw CommandFailure(.usage, error.description) }
        guard let photo = try find(query, in: photos(home: home)) else {
            if let sent = try sentAndGone(query, home: home) { return print(sent) }
            throw notInSpool(query)
        }
        try home.createIfNeeded()
        try ReviewJournal(home: home).append([ReviewDecision(photo: photo.entry.id, caption: caption, by: "relay review")])
        let now = Date()
        let outcome = CaptionOutcome(
            (photo.entry.destinations ?? [:]).values.sorted { $0.label < $1.label }.map { ($0.label, Leg($0).state(at: now)) })
        print("caption of \(photo.entry.uploadName) \(caption.isEmpty ? "cleared" : "set"): \(outcome.sentence)")
    }

    /// The one photo of `all` that `query` names (an id's start or a file name); nil when none.
    private static func find(_ query: String, in all: [HeldPhoto]) throws -> HeldPhoto? {
        let matches = all.filter { $0.entry.id.hasPrefix(query.lowercased()) || $0.entry.uploadName == query }
        guard matches.count <= 1 else { throw CommandFailure(.usage, "'\(query)' names \(matches.count) photos; give more of the id") }
        return matches.first
    }

    private static func notInSpool(_ query: String) -> CommandFailure {
        CommandFailure(
            .usage,
            "no photo '\(query)' in the spool (relay review list shows those held; a photo leaves the spool once "
                + "every destination has it or rejected it)")
    }

    private static func decide(_ kind: ReviewDecision.Kind, ids: [String], home: RelayHome) throws {
        let all = try photos(home: home)
        var chosen: [HeldPhoto] = []
        var sentBefore: [String] = []
        for query in ids {
            let match = try find(query, in: all)
            if match == nil, let sent = try sentAndGone(query, home: home) {
                sentBefore.append(sent)
                continue
            }
            guard let photo = match else { throw notInSpool(query) }
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
        case .caption: break
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
        /// The editor's caption and title, if set.
        var caption: PhotoCaption?

        init(_ photo: HeldPhoto, caption: PhotoCaption?) {
            self.caption = caption
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
