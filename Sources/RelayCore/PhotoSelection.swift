/// What the photographer marked on a photo in the camera: the stars its file carries, the card's
/// protection of it, and whether the body asked for it to be taken (Canon's transfer button,
/// Nikon's upload mark). Known at intake (the file, the card's ObjectInfo) or later, from the
/// camera's events (issue 41).
public struct PhotoSelection: Sendable, Equatable, Codable {
    /// The rating in the file: 0 to 5 stars, −1 rejected (XMP `xmp:Rating`, EXIF 0x4746).
    public var rating: Int?
    /// Protected on the card (PTP ObjectInfo ProtectionStatus 0x0001; a libgphoto2 file without
    /// the delete permission).
    public var protected: Bool
    /// The body asked for the photo to be transferred.
    public var requested: Bool

    public init(rating: Int? = nil, protected: Bool = false, requested: Bool = false) {
        self.rating = rating
        self.protected = protected
        self.requested = requested
    }

    /// Whether a destination that sends selected photos with `policy` takes it: a transfer
    /// request always, protection when it counts, a rating of at least the policy's stars.
    public func selects(_ policy: SelectionPolicy) -> Bool {
        requested || (protected && policy.protectionCounts) || (rating ?? 0) >= max(1, policy.minRating)
    }

    /// "★★★ protected", as lists show it; empty when nothing is marked.
    public var marks: String {
        var parts: [String] = []
        if let rating {
            parts.append(rating < 0 ? "rejected in camera" : rating == 0 ? "0 stars" : String(repeating: "★", count: rating))
        }
        if protected { parts.append("protected") }
        if requested { parts.append("transfer asked") }
        return parts.joined(separator: " ")
    }
}

/// What counts as the photographer's selection for a destination that sends selected photos.
public struct SelectionPolicy: Sendable, Equatable {
    /// The fewest stars a rating needs (1 to 5).
    public var minRating: Int
    /// Whether protecting a shot on the card selects it.
    public var protectionCounts: Bool

    public init(minRating: Int = 1, protectionCounts: Bool = true) {
        self.minRating = minRating
        self.protectionCounts = protectionCounts
    }
}
