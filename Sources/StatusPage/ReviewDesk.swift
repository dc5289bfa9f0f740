import Foundation
import RelayCore
import RunEvents

/// What the editor's page reads and changes, handed to the status server by the run once it has
/// opened its spool: the photos on the desk, a number that changes with them, decisions, captions, and
/// each photo's file for its thumbnail. Closures, so that the page knows nothing of the pipeline.
public struct ReviewDesk: Sendable {
    /// A photo on the desk as the page lists it.
    public struct Photo: Sendable, Equatable, Encodable {
        public var id: String
        public var name: String
        public var source: String
        public var capturedAt: Date
        /// The destinations (labels) that hold it.
        public var heldFor: [String]
        /// The rating its file carries, if any.
        public var rating: Int?
        /// Protected on the camera's card.
        public var protected: Bool
        /// Who shot it, when the desk knows (a receiver's login).
        public var photographer: String?
        /// The camera that made it, as its file says.
        public var camera: String?
        /// Where the desk stands on it.
        public var state: DeskState = .undecided
        /// Selected in the camera (rated or protected).
        public var selected = false
        /// Until when a rejection can be undone.
        public var undoableUntil: Date?
        /// The editor's caption and title, if set.
        public var caption: String?
        public var title: String?

        public init(
            id: String, name: String, source: String, capturedAt: Date, heldFor: [String], rating: Int? = nil, protected: Bool = false,
            photographer: String? = nil, camera: String? = nil
        ) {
            self.photographer = photographer
            self.camera = camera
            self.id = id
            self.name = name
            self.source = source
            self.capturedAt = capturedAt
            self.heldFor = heldFor
            self.rating = rating
            self.protected = protected
        }
    }

    /// The photos on the desk (held, or decided and still in the spool), oldest first.
    public var photos: @Sendable () -> [Photo]
    /// Changes whenever the held photos change or a decision is applied.
    public var version: @Sendable () -> Int
    /// Records `kind` on each photo of `ids` (synced before it returns) and applies it; returns
    /// what it did to each photo in the spool (one no longer there is left out).
    public var decide: @Sendable (_ ids: [String], _ kind: ReviewDecision.Kind, _ by: String) throws -> [String: ReviewOutcome]
    /// The file to make the photo's thumbnail from (nil once it left the spool).
    public var file: @Sendable (_ id: String) -> URL?
    /// Records the editor's caption on a photo (synced before it returns); which destinations it
    /// reaches, nil when the photo is not in the spool.
    public var caption: @Sendable (_ id: String, _ caption: PhotoCaption, _ by: String) throws -> CaptionOutcome? = { _, _, _ in nil }
    /// The files the loupe makes its pictures from (nil once the photo left the spool); without
    /// them, from ``file``.
    public var pictures: @Sendable (_ id: String) -> Pictures?

    /// A photo's own file (the loupe's 100 % crops and its size) and its renditions made so far
    /// (a large picture decodes faster from one of them than from the photo).
    public struct Pictures: Sendable, Equatable {
        public var original: URL
        public var renditions: [URL]

        public init(original: URL, renditions: [URL]) {
            self.original = original
            self.renditions = renditions
        }
    }

    public init(
        photos: @escaping @Sendable () -> [Photo], version: @escaping @Sendable () -> Int,
        decide: @escaping @Sendable (_ ids: [String], _ kind: ReviewDecision.Kind, _ by: String) throws -> [String: ReviewOutcome],
        file: @escaping @Sendable (_ id: String) -> URL?, pictures: @escaping @Sendable (_ id: String) -> Pictures? = { _ in nil }
    ) {
        self.photos = photos
        self.version = version
        self.decide = decide
        self.file = file
        self.pictures = pictures
    }
}
