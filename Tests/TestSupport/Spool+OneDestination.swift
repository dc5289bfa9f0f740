import Foundation
import Spool

/// A spool that delivers to one destination, as most spool tests need: the calls a worker of
/// that destination makes, by the names of what each does.
extension Spool {
    /// The id of the one destination of ``gallery(directory:limits:renditionKey:)``.
    public static let galleryID = "GALLERY"

    /// A spool delivering to one gallery, which takes photos still downloading and, when the
    /// spool makes them, renditions.
    public static func gallery(directory: URL, limits: SpoolLimits = SpoolLimits(), renditionKey: String? = nil) throws -> Spool {
        try Spool(
            directory: directory, limits: limits,
            destinations: SpoolDestinations([
                SpoolDestination(id: galleryID, label: "gallery", rendition: renditionKey, takesGrowing: true)
            ]))
    }

    /// The destination the helpers below work for: the run's first.
    private var firstDestination: String { destinations.all.first?.id ?? "" }

    /// Blocks until a committed photo is due for the first destination; nil once closed.
    public func claimNext() -> SpoolEntry? {
        guard case .spooled(let entry)? = claimWork(for: firstDestination) else { return nil }
        return entry
    }

    /// Blocks until there is work for the first destination, photos still downloading included
    /// with `cutThrough` (with `unsized`, also those whose size is not known before their end).
    public func claimNextWork(cutThrough: Bool, unsized: Bool = true) -> Work? {
        claimWork(for: firstDestination, growing: !cutThrough ? .none : unsized ? .any : .sized)
    }

    public func markDelivered(_ entry: SpoolEntry) throws {
        try settle(entry, for: firstDestination, .delivered)
    }

    public func requeue(_ entry: SpoolEntry, after delay: TimeInterval, error: String?, statusCode: Int?) {
        _ = try? settle(entry, for: firstDestination, .retry(after: delay, error: error, statusCode: statusCode))
    }

    public func moveToFailed(_ entry: SpoolEntry, error: String, statusCode: Int?) throws {
        try settle(entry, for: firstDestination, .failed(error: error, statusCode: statusCode))
    }

    public func settleCutThrough(_ photo: GrowingPhoto, retryDelay: TimeInterval) -> GrowingPhoto.Outcome {
        settleCutThrough(photo, for: firstDestination, retryDelay: retryDelay)
    }
}
