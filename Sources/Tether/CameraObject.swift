import Foundation
import PTPWire
import Spool

/// A file on the camera, as its ObjectInfo describes it, and what relay does with it.
public struct CameraObject: Sendable, Equatable {
    public let handle: UInt32
    public let info: PTPObjectInfo
    /// Canon keeps a capture in camera memory until told TransferComplete.
    public var needsTransferComplete: Bool
    /// relay named it itself (the body described nothing): its size, learnt or not depending on
    /// the moment, is no part of its identity.
    public var namedByRelay: Bool

    public init(handle: UInt32, info: PTPObjectInfo, needsTransferComplete: Bool = false, namedByRelay: Bool = false) {
        self.handle = handle
        self.info = info
        self.needsTransferComplete = needsTransferComplete
        self.namedByRelay = namedByRelay
    }

    /// What makes the photo itself distinct on its camera, independent of the object handle
    /// (which a camera may hand out anew at each connection): storage, file name, size and
    /// capture date. The seen log and the spool id are keyed by it. A photo relay named itself
    /// is keyed by that name (from its handle) alone.
    public var identityKey: String {
        key(size: namedByRelay ? "" : String(info.compressedSize))
    }

    /// The key relay gave a photo it named itself before leaving its size out: a photo recorded
    /// as taken under it is not taken again.
    public var earlierIdentityKey: String? {
        namedByRelay ? key(size: String(info.compressedSize)) : nil
    }

    private func key(size: String) -> String {
        "\(String(info.storageID, radix: 16))|\(info.filename)|\(size)|\(info.captureDate)"
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
        PhotoIdentity(
            source: Self.sourceLabel(serial: cameraSerial), fileName: info.filename,
            bytes: expectedBytes ?? 0, capturedAt: detectedAt, uniqueKey: identityKey)
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
