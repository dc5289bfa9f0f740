/// The rules of a photo's destinations, as plain values: which destinations a photo was taken
/// for is decided once, when it is spooled, and kept in its sidecar; a run that delivers to
/// fewer never forgets the others'. No files, threads or clocks: the spool applies these.
public enum PhotoDestinations {
    /// Where a photo stands once its destinations are looked at together.
    public enum Settlement: Sendable, Equatable {
        /// A destination still has it queued (in this run or another).
        case waiting
        /// Every destination has it (or none is left): it leaves the spool.
        case delivered
        /// Every destination settled and at least one refused it: it moves to failed/.
        case refused(reason: String, statusCode: Int?)
    }

    public static func settlement(_ map: [String: DestinationProgress]) -> Settlement {
        if map.values.contains(where: { $0.state == .queued }) { return .waiting }
        let refused = map.values.filter { $0.state == .failed }.sorted { $0.label < $1.label }
        guard let first = refused.first else { return .delivered }
        // A photo with one destination keeps that destination's own words.
        if map.count == 1 { return .refused(reason: first.lastError ?? "refused", statusCode: first.lastStatusCode) }
        let reason = refused.map { "\($0.label): \($0.lastError ?? "refused")" }.joined(separator: "; ")
        return .refused(reason: reason, statusCode: first.lastStatusCode)
    }

    /// Whether `query` names the destination `id`: its config id (or a prefix of it, as
    /// `relay status` shows), or its label, case aside.
    public static func matches(_ query: String, id: String, progress: DestinationProgress) -> Bool {
        let query = query.lowercased()
        return !query.isEmpty && (id.lowercased().hasPrefix(query) || progress.label.lowercased() == query)
    }

    /// The map without the destinations `query` names that still wait for the photo (the user
    /// gave up on delivering it there); nil when none of them waits.
    public static func release(_ map: [String: DestinationProgress], matching query: String) -> [String: DestinationProgress]? {
        let released = map.filter { $0.value.state == .queued && matches(query, id: $0.key, progress: $0.value) }
        guard !released.isEmpty else { return nil }
        return map.filter { released[$0.key] == nil }
    }

    /// The map with the destinations that refused the photo queued again (only those `query`
    /// names, when given: `relay retry --destination`); nil when none is to be tried again.
    public static func retry(_ map: [String: DestinationProgress], matching query: String?) -> [String: DestinationProgress]? {
        let retried = map.filter { id, progress in
            progress.state == .failed && (query.map { matches($0, id: id, progress: progress) } ?? true)
        }
        guard !retried.isEmpty else { return nil }
        var requeued = map
        for id in retried.keys { requeued[id]?.state = .queued }
        return requeued
    }

    /// The destinations outside `delivering` that still wait for photos of `maps`, with how many
    /// and which (by the name the photo is sent under), most photos first.
    public static func waiting(
        _ photos: [(name: String, map: [String: DestinationProgress])], outside delivering: Set<String>
    ) -> [WaitingDestination] {
        var found: [String: WaitingDestination] = [:]
        for photo in photos {
            for (id, progress) in photo.map where progress.state == .queued && !delivering.contains(id) {
                found[id, default: WaitingDestination(id: id, label: progress.label)].photos.append(photo.name)
            }
        }
        return found.values.sorted { ($0.photos.count, $1.label) > ($1.photos.count, $0.label) }
    }
}

/// A destination that photos in the spool wait for.
public struct WaitingDestination: Codable, Sendable, Equatable {
    /// The request config's id.
    public var id: String
    public var label: String
    /// The names the waiting photos are sent under.
    public var photos: [String]

    public init(id: String, label: String, photos: [String] = []) {
        self.id = id
        self.label = label
        self.photos = photos
    }

    /// The first five names, and "…" when there are more, for a line of the log.
    public var someNames: String {
        photos.prefix(5).joined(separator: ", ") + (photos.count > 5 ? ", …" : "")
    }
}
