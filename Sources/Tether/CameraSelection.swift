import Foundation
import PhotoMetadata
import RelayCore
import RunEvents
import Spool

/// What both camera roads (PTP/IP and libgphoto2) do when the camera says a photo changed
/// after relay took it (issue 41): read its head again for the rating, and tell the spool the
/// photographer's marks, saying what that did.
enum CameraSelection {
    /// The most of a photo's head read: the EXIF block and the XMP packet are at most 64 KB
    /// each, and a few smaller segments come before them.
    static let headLimit = 256 * 1024

    /// A photo's head, as far as its application segments go, read in pieces with
    /// `read(offset, count)` (nil or empty: the body gave nothing more). Never the pixels.
    static func head<Failure: Error>(_ read: (_ offset: Int64, _ count: Int) throws(Failure) -> [UInt8]?) throws(Failure) -> [UInt8]? {
        try JPEGSegments.readHead(limit: headLimit, read)
    }
}

extension SessionContext {
    /// Tells the spool the photographer's marks on the photo `id` (`fileName` on `camera`), and
    /// the run what that did to its held legs.
    func select(_ selection: PhotoSelection, photo id: String, fileName: String, camera: String) {
        // Read first: a photo the marks release may be delivered and leave the spool before the
        // decisions are back (a full test run lost the event so, and a desk never heard of it).
        let entry = spool.entry(id)
        let decisions: [PhotoLedger.Decision]?
        do {
            decisions = try spool.select(id, selection)
        } catch {
            report(.warning("the selection of \(fileName) could not be saved in the spool: \(error)"))
            return
        }
        guard let decisions else {
            if spool.destinations.all.contains(where: { $0.rule.holds }) {
                report(.info("\(fileName) was marked on \(camera) after it left the spool: nothing changes"))
            }
            return
        }
        guard !decisions.isEmpty, let entry else { return }
        let outcome = ReviewOutcome(
            released: decisions.labels(.released), heldAgain: decisions.labels(.heldAgain), alreadySent: decisions.labels(.alreadySent))
        report.review(
            .selected(
                PhotoRef(id: entry.id, name: entry.uploadName, bytes: entry.bytes, shot: entry.timerShot, photographer: entry.photographer),
                marks: selection.marks, camera: camera, outcome: outcome))
    }
}
