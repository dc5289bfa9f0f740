import Foundation
import RunEvents
import Spool

extension SpoolEntry {
    /// The photo as events name it.
    public var photoRef: PhotoRef {
        PhotoRef(id: id, name: uploadName, bytes: bytes, shot: timerShot, renditionBytes: rendition?.bytes, photographer: photographer)
    }
}

extension SourceReporter {
    /// Reports a photo just committed to `spool`.
    public func spooled(_ entry: SpoolEntry, in spool: Spool) {
        self(
            .spooled(
                SpooledPhoto(
                    photo: entry.photoRef, cameraFileName: entry.cameraFileName, capturedAt: entry.capturedAt,
                    path: spool.photoURL(for: entry).path)))
    }
}
