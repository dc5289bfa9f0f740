import Foundation
import RelayCore

/// The JSON sidecar beside each spooled photo: who it is, where it came from, how delivery went.
///
/// It is written (atomically) before the photo is renamed into the spool and rewritten before
/// each attempt and before the photo is removed, so that after a crash the sidecar alone says
/// whether the photo still has to go.
public struct SpoolEntry: Codable, Sendable, Equatable, Identifiable {
    public enum State: String, Codable, Sendable {
        case queued, delivered, failed
    }

    /// Stable id derived from the photo's source identity: the same camera file spooled twice
    /// (after a crash between spooling and remembering it) gets the same id and is not queued twice.
    public var id: String
    /// Order of arrival, used for FIFO delivery and shown as the history's capture number.
    public var sequence: Int
    /// Where the photo came from, e.g. `folder:/path/to/hot-folder`.
    public var source: String
    public var cameraFileName: String
    /// The safe, unique file name sent to the gallery.
    public var uploadName: String
    public var bytes: Int64
    /// Best known shutter time (the camera's capture date, or the file's modification time).
    public var capturedAt: Date
    public var spooledAt: Date
    public var attempts: Int
    /// Sent as `Idempotency-Key` on every attempt for this photo.
    public var idempotencyKey: String
    public var isTimerCapture: Bool
    /// The shot number of a timed capture (`relay capture`), shown as the history's capture number.
    public var timerShot: Int?
    /// A bracketing frame's set, frame and speed.
    public var bracket: BracketTag?
    public var state: State
    /// Set while a worker is uploading it; with `uploaderPID`, lets `relay status` show in-flight photos.
    public var inFlightSince: Date?
    public var uploaderPID: Int32?
    public var lastError: String?
    public var lastStatusCode: Int?
    /// The renditions made of it (or the originals sent instead), by spec (``SpoolRendition/spec``).
    public var renditions: [String: SpoolRendition]?
    /// What a worker is sent instead of the photo: set only in the entry handed to a worker of
    /// a destination that takes a rendition (``renditions`` keeps them all).
    public var rendition: SpoolRendition?
    /// Per destination (by config id), when the photo goes to several: it leaves the spool once
    /// every one has it, or moves to failed/ once every one has settled and one refused it.
    public var destinations: [String: DestinationProgress]?
    /// What names the photo's content at its source, for a source that can name a photo only
    /// at its end (an FTP upload: account, path, size and SHA-256); see ``PhotoIdentity/contentKey``.
    public var contentKey: String?
    /// The photographer's rating the file carries (0 to 5; -1 rejected), when it carries one.
    public var rating: Int?
    /// Protected on the camera's card (set only when it is).
    public var protected: Bool?
    /// The camera asked for it to be transferred (set only when it did).
    public var transferRequested: Bool?
    /// Who shot it, as the source knows them: the login a receiver took it under (FTP or HTTP
    /// user), else the run's own photographer; nil for a photo nobody was named for.
    public var photographer: String?
    /// The sender's note on it (the `note` part of a multipart upload).
    public var note: String?
    /// The camera that made it, as its file says (``HeaderFacts/camera``).
    public var camera: String?

    /// What the photographer marked on it in the camera, as last known.
    public var selection: PhotoSelection {
        get { PhotoSelection(rating: rating, protected: protected ?? false, requested: transferRequested ?? false) }
        set {
            rating = newValue.rating
            protected = newValue.protected ? true : nil
            transferRequested = newValue.requested ? true : nil
        }
    }

    /// Whether the photographer selected it in the camera for a destination with `policy`.
    public func isSelected(_ policy: SelectionPolicy) -> Bool { selection.selects(policy) }

    public init(
        id: String, sequence: Int, source: String, cameraFileName: String, uploadName: String, bytes: Int64,
        capturedAt: Date, spooledAt: Date, idempotencyKey: String, timerShot: Int? = nil, contentKey: String? = nil,
        bracket: BracketTag? = nil
    ) {
        self.contentKey = contentKey
        self.bracket = bracket
        self.id = id
        self.sequence = sequence
        self.source = source
        self.cameraFileName = cameraFileName
        self.uploadName = uploadName
        self.bytes = bytes
        self.capturedAt = capturedAt
        self.spooledAt = spooledAt
        self.attempts = 0
        self.idempotencyKey = idempotencyKey
        self.isTimerCapture = timerShot != nil
        self.timerShot = timerShot
        self.state = .queued
    }
}

/// What a source knows about a photo before it is spooled.
public struct PhotoIdentity: Sendable, Equatable {
    /// Where it came from, e.g. `folder:/srv/drop` or `ptp:SERIAL`.
    public var source: String
    public var fileName: String
    public var bytes: Int64
    public var capturedAt: Date
    /// Everything that makes this photo distinct at its source (path, size, date...).
    public var uniqueKey: String
    /// The shot number, when a timed capture fired the camera for this photo.
    public var timerShot: Int?
    /// A bracketing frame's set, frame and speed, when a bracketing run fired it.
    public var bracket: BracketTag?
    /// Set once the content is known, by a source whose photos get their id before it (an FTP
    /// upload, offered for upload as it starts): a repeat of the same content is then found in
    /// the spool (``Spool/contains(contentKey:)``) even if relay died before the source
    /// remembered it.
    public var contentKey: String?
    /// What the source says the photographer marked on it (a card's protection); its rating is
    /// read from the file when it is committed.
    public var selection = PhotoSelection()
    /// Who shot it (``SpoolEntry/photographer``).
    public var photographer: String?
    /// The sender's note on it (``SpoolEntry/note``).
    public var note: String?

    public init(source: String, fileName: String, bytes: Int64, capturedAt: Date, uniqueKey: String, timerShot: Int? = nil) {
        self.source = source
        self.fileName = fileName
        self.bytes = bytes
        self.capturedAt = capturedAt
        self.uniqueKey = uniqueKey
        self.timerShot = timerShot
    }

    /// The spool id and idempotency key: a 128-bit hash of source and unique key, stable across runs.
    public var stableID: String {
        StableHash.hex128(source + "\u{0}" + uniqueKey)
    }
}

/// FNV-1a based 128-bit digest for ids (not for security: it only has to be stable and spread well).
public enum StableHash {
    public static func hex128(_ text: String) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in text.utf8 {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = b ^ (a >> 29)
        }
        return String(format: "%016llx%016llx", a, b)
    }
}
