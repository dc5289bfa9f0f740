import Foundation
import PTPWire
import PhotoMetadata
import Spool

/// A file on the camera, as its ObjectInfo describes it, and what relay does with it.
public struct CameraObject: Sendable, Equatable {
    public let handle: UInt32
    public var info: PTPObjectInfo
    /// Canon keeps a capture in camera memory until told TransferComplete.
    public var needsTransferComplete: Bool
    /// The body described nothing (no name, size or capture time before the download): relay
    /// named it, and knows it by its header (``header``) once that is read.
    public let namedByRelay: Bool
    /// The file's first bytes, read to learn what a photo the body did not describe is; they
    /// start its download. Dropped (read again with the rest) while many downloads wait.
    public var head: [UInt8]?
    /// What the photo's own header says it is, for a photo the body did not describe.
    public var header: PhotoHeaderIdentity?
    /// The name relay gave it from its handle (what relays before identity by header keyed it by).
    private let handleName: String

    public init(
        handle: UInt32, info: PTPObjectInfo, needsTransferComplete: Bool = false, namedByRelay: Bool = false,
        head: [UInt8]? = nil
    ) {
        self.handle = handle
        self.info = info
        self.needsTransferComplete = needsTransferComplete
        self.namedByRelay = namedByRelay
        self.head = head
        handleName = info.filename
    }

    /// What makes the photo itself distinct on its camera, whatever handle a session gives it
    /// (PTP promises a handle only within a session): the card's storage, file name, size and
    /// capture date, where the body gives them; else what its header says (``header``). The seen
    /// log and the spool id are keyed by it. Only a photo whose header could not be read is
    /// keyed by the name relay made from its handle.
    public var identityKey: String {
        guard namedByRelay else { return key(name: info.filename, size: String(info.compressedSize)) }
        return header?.key ?? key(name: handleName, size: "")
    }

    /// What stays the same when the body rewrites the file on the card (a rating written into
    /// its XMP changes its size): storage, name and capture date. Nil where that is not enough
    /// to tell two photos apart (no capture date) or the body described nothing.
    public var rewriteKey: String? {
        guard !namedByRelay, !info.captureDate.isEmpty else { return nil }
        return key(name: info.filename, size: "rewritable")
    }

    /// The seen-log lines of a photo taken: its identity, and its ``rewriteKey``.
    public var seenKeys: [(key: String, file: String)] {
        [(identityKey, info.filename)] + (rewriteKey.map { [($0, info.filename)] } ?? [])
    }

    /// The keys relays before identity by header gave a photo they named from its handle (with
    /// its size, and later without). Such a key cannot tell two photos apart that a restarted
    /// body gave the same handle, so it counts only for a photo on the card at the connection.
    public var handleKeys: [String] {
        guard namedByRelay else { return [] }
        return [key(name: handleName, size: ""), key(name: handleName, size: String(info.compressedSize))]
    }

    private func key(name: String, size: String) -> String {
        "\(String(info.storageID, radix: 16))|\(name)|\(size)|\(info.captureDate)"
    }

    /// What a match on one of ``handleKeys`` means, for the line that says it was taken before.
    public var handleKeyText: String {
        "\(handleName), the name an earlier relay gave handle \(String(handle, radix: 16)) (it kept such photos by handle)"
    }

    /// The photo as its identity describes it, for the line that says it was taken before.
    public var identityText: String {
        if namedByRelay {
            guard let header else { return "\(handleName), relay's name for handle \(String(handle, radix: 16)) (no header read)" }
            return header.summary
        }
        let date = info.captureDate.isEmpty ? "" : ", shot \(info.captureDate)"
        return "\(info.filename), \(info.compressedSize) bytes\(date)"
    }

    /// The size the camera gave, nil when it gave none (0xFFFFFFFF: a Nikon Z in "connect to
    /// computer" mode that answers no GetObjectSize, or an object over 4 GB): the download then
    /// ends at the first short piece (``ObjectDownload``).
    public var expectedBytes: Int64? {
        info.compressedSize == .max ? nil : Int64(info.compressedSize)
    }

    /// The photo as the spool knows it (0 bytes: not known before the download ends). `detectedAt` stands for the shutter time: camera clocks
    /// are often wrong or in another time zone, while the moment relay learned of the photo is
    /// within a poll interval of the shutter.
    public func photoIdentity(cameraSerial: String, detectedAt: Date) -> PhotoIdentity {
        var identity = PhotoIdentity(
            source: Self.sourceLabel(serial: cameraSerial), fileName: info.filename,
            bytes: expectedBytes ?? 0, capturedAt: detectedAt, uniqueKey: identityKey)
        identity.selection.protected = info.isProtected
        return identity
    }

    /// The spool's source label of a camera's photos.
    public static func sourceLabel(serial: String) -> String { "camera:" + serial }
}

/// Whether a camera object is taken, by the rules of `relay run`.
public enum TakeDecision: Equatable, Sendable {
    /// Download it into the spool.
    case take
    /// A folder, not a photo.
    case folder
    /// A RAW file (kept on the card unless `--include-raw`).
    case skipRAW
    /// Not a photo relay uploads (movie, sidecar, ...).
    case skipOther
    /// Taken before (in this run or an earlier one).
    case alreadyTaken
    /// On the card before relay first connected to this camera, and `--include-existing` not given.
    case existing

    /// Decides for `object`: `seen` says it is in the camera's seen log, `existing` that it was on
    /// the card at the first connection.
    public static func decide(_ object: CameraObject, seen: Bool, existing: Bool, includeRAW: Bool) -> TakeDecision {
        if object.info.isFolder { return .folder }
        if seen { return .alreadyTaken }
        if existing { return .existing }
        switch object.info.photoKind {
        case .jpeg: return .take
        case .raw: return includeRAW ? .take : .skipRAW
        case .other: return .skipOther
        }
    }
}
