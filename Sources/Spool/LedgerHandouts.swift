import Foundation

// The values the ledger hands out and takes back: a photo's number and name, what a worker
// takes and is given, how a reading during a download ended, what the Spool found at start.

/// A photo's number and upload name, fixed when its download begins.
public struct Reservation: Sendable, Equatable {
    public var sequence: Int
    public var uploadName: String

    public init(sequence: Int, uploadName: String) {
        self.sequence = sequence
        self.uploadName = uploadName
    }
}

/// Which photos still downloading a worker takes.
public enum GrowingAcceptance: Sendable, Equatable {
    /// None: only committed photos.
    case none
    /// Those whose size is known before their end.
    case sized
    /// Any (the body can go without a length).
    case any
}

/// What a worker is handed, as the ledger names it.
public enum Handout: Sendable, Equatable {
    /// A committed photo, its leg in flight for the caller.
    case spooled(SpoolEntry)
    /// A photo (or rendition) still downloading, by its offer.
    case growing(offer: Int)
}

/// What the rendition thread is handed, as the ledger names it: a photo and the spec to make.
public enum RenditionJob: Sendable, Equatable {
    case committed(SpoolEntry, spec: String)
    case growing(offer: Int, spec: String)
}

/// How a reading during a download ended for its reader.
public enum OfferOutcome: Sendable, Equatable {
    /// Spooled: the entry is in flight for the worker that read it (for the rendition thread:
    /// its rendition is being made).
    case committed(SpoolEntry)
    /// This download will not be spooled as it was read (failed, rewound, withdrawn, given up).
    case abandoned
}

/// What the Spool found on disk beside a sidecar at start.
public struct FoundFiles: Sendable, Equatable {
    /// Its photo is in the spool.
    public var photo: Bool
    /// The specs whose rendition file is in the spool.
    public var renditions: Set<String>

    public init(photo: Bool = true, renditions: Set<String> = []) {
        self.photo = photo
        self.renditions = renditions
    }
}
