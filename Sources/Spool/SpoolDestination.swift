import RelayCore

/// One destination of a run, as the spool needs to know it: what it is sent and when. Every
/// destination is the same kind of leg in ``PhotoLedger``; what differs between them is declared
/// here, never by their position in the run.
///
/// DESIGN: a new trait of a destination (a new way to be fed) is a field here and a rule in
/// `PhotoLedger+Claims.swift`; a new destination kind needs neither (see `Destinations.kinds`).
public struct SpoolDestination: Sendable, Equatable {
    /// The request config's id, by which each photo's sidecar records the destination's progress.
    public var id: String
    /// The destination's name for people (the config's note, else its URL).
    public var label: String
    /// Uses the uplink only while no photo waits for a destination of normal priority.
    public var lowPriority: Bool
    /// The rendition it is sent instead of each original (``RenditionSpec/key``; a photo waits
    /// for it), nil for originals. Each destination names its own; destinations that name the
    /// same spec share one file.
    public var rendition: String?
    /// Can be handed a photo (or its rendition) while it still downloads (cut-through).
    public var takesGrowing: Bool
    /// Which photos it is sent; a photo the rule does not admit (yet) is held for it.
    public var rule: SendRule
    /// What counts as the photographer's selection here (stars, protection).
    public var selection: SelectionPolicy

    /// `takesGrowing` stays off for a destination whose rule holds photos: a photo still
    /// downloading has had no decision.
    public init(
        id: String, label: String, lowPriority: Bool = false, rendition: String? = nil, takesGrowing: Bool = false,
        rule: SendRule = .all, selection: SelectionPolicy = SelectionPolicy()
    ) {
        self.id = id
        self.label = label
        self.lowPriority = lowPriority
        self.rendition = rendition
        self.takesGrowing = takesGrowing && !rule.holds
        self.rule = rule
        self.selection = selection
    }
}

/// The destinations of a run, by priority: those of normal priority first, each group in the
/// order the run named them. Empty for a spool opened to be looked after, not delivered from
/// (`relay retry`, `relay drop`): it hands out no work and never finishes a photo on its own.
public struct SpoolDestinations: Sendable, Equatable {
    public let all: [SpoolDestination]

    public init(_ destinations: [SpoolDestination]) {
        all = destinations.filter { !$0.lowPriority } + destinations.filter(\.lowPriority)
    }

    /// No destination: the spool is looked after, not delivered from.
    public static let none = SpoolDestinations([])

    public subscript(id: String) -> SpoolDestination? {
        all.first { $0.id == id }
    }

    /// What a new photo's sidecar starts with: every destination still to go.
    var initialProgress: [String: DestinationProgress] {
        Dictionary(uniqueKeysWithValues: all.map { ($0.id, DestinationProgress(label: $0.label)) })
    }

    /// The destination a photo still downloading is offered to: the first of the leading
    /// priority that takes growing files (one that does not, such as a gallery that holds photos
    /// for review, waits for the commit in any case; a low-priority one must not take the uplink
    /// from it). Nil: photos go once committed.
    var growingTaker: SpoolDestination? {
        all.first { $0.takesGrowing && $0.lowPriority == all.first?.lowPriority }
    }

    /// The rendition specs the run makes, each once, in the destinations' order.
    public var renditionKeys: [String] {
        all.compactMap(\.rendition).reduce(into: []) { keys, key in if !keys.contains(key) { keys.append(key) } }
    }

    /// The spec decoded while a photo downloads (one decoder reads a download): the first
    /// destination's that takes a rendition. The others' are made from the committed photo.
    var streamedRendition: String? {
        renditionKeys.first
    }
}
