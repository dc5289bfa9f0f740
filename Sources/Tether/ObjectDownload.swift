import Foundation
import PTPIP
import PTPWire
import Spool

/// Why a download did not complete. A camera failure ends the session (relay reconnects and
/// resumes from the bytes it has); a refusal is that object's problem (the session goes on); a
/// spool failure leaves the session usable and the photo on the card until there is room.
enum DownloadFailure: Error {
    case camera(PTPIPError)
    /// The camera answered the transfer with an error code; the bytes so far are kept.
    case refused(PTPOperationCode, PTPResponseCode)
    case spool(SpoolError)
}

/// Copies one object from the camera into an incoming spool file, in chunks (GetPartialObject or
/// its 64-bit Nikon form), starting at the bytes the file already holds: a download cut by a
/// dropped connection resumes where it stopped instead of starting again.
struct ObjectDownload {
    let session: CameraSession
    let object: CameraObject
    let incoming: IncomingPhoto
    /// Bytes asked for per request.
    let chunkSize: Int
    /// How the dialect reads this body's objects.
    let operation: DownloadOperation

    /// The object's size as its ObjectInfo gives it; nil when the body gives none (then the
    /// download ends at the first piece shorter than asked, or an empty one).
    var size: Int64? { object.expectedBytes }

    /// Whether the camera can send parts of an object; without it the object comes whole
    /// (streamed all the same) and a cut download starts again.
    var resumable: Bool { operation.resumable }

    /// The most bytes one GetObject of an object of unknown size may bring (4 GiB).
    static let wholeObjectLimit: Int64 = 1 << 32

    /// Downloads the rest of the object; on return the incoming file holds all of it, and the
    /// result counts the answers whose byte count disagreed with the bytes sent (bodies are
    /// sloppy there: the bytes are trusted). `beforeChunk` runs between two requests: it may end
    /// the download (relay stopping) or use the camera for something that cannot wait for the
    /// rest of the file (a timed shot).
    @discardableResult
    func run(beforeChunk: () throws(PTPIPError) -> Void) throws(DownloadFailure) -> Int {
        var mismatches = 0
        if !resumable && incoming.byteCount > 0 {
            do { try incoming.truncate(to: 0) } catch { throw .spool(error) }
        }
        // Of unknown size: a piece shorter than asked may be the end, or a body's own cap on a
        // piece; the next request tells (no data, or an error, past the end).
        var afterShortPiece = false
        while size.map({ incoming.byteCount < $0 }) ?? true {
            do { try beforeChunk() } catch { throw .camera(error) }
            let offset = incoming.byteCount
            let want: Int64
            switch (resumable, size) {
            case (true, let size?): want = min(Int64(chunkSize), size - offset)
            case (true, nil): want = Int64(chunkSize)
            case (false, let size?): want = size
            case (false, nil): want = Self.wholeObjectLimit
            }
            let reply = try transfer(offset: offset, count: want)
            let received = Int64(reply.dataByteCount)
            guard reply.code.isOK else {
                try discardSince(offset)
                if afterShortPiece { break }
                throw .refused(operation.code, reply.code)
            }
            if resumable, let reported = reply.response.parameters.first, Int64(reported) != received {
                mismatches += 1
            }
            if size == nil {
                // No data past the end (after a short piece, or at a piece's boundary).
                if offset > 0 && received == 0 { break }
                if !resumable && received > 0 { break }
                afterShortPiece = received < want
                if received > 0 { continue }
            }
            guard received > 0 else {
                throw .camera(
                    .protocolViolation(
                        peer: session.address,
                        detail: "\(operation.code) sent no data for \(object.info.filename) at byte \(offset) of \(sizeText)"))
            }
            if !resumable, let size, received != size {
                try discardSince(0)
                throw .camera(
                    .protocolViolation(
                        peer: session.address,
                        detail: "GetObject sent \(received) of the \(size) bytes of \(object.info.filename)"))
            }
        }
        return mismatches
    }

    private var sizeText: String { size.map(String.init) ?? "an unknown size" }

    /// One GetPartialObject (or the whole GetObject); the bytes go to the file as they arrive.
    /// A failing write is remembered and the rest of the data drained, so the camera session
    /// stays usable.
    private func transfer(offset: Int64, count: Int64) throws(DownloadFailure) -> PTPIPReply {
        let incoming = self.incoming
        var writeFailure: SpoolError?
        let sink: ([UInt8]) throws -> Void = { bytes in
            guard writeFailure == nil else { return }
            do throws(SpoolError) { try incoming.append(bytes) } catch { writeFailure = error }
        }
        let reply: PTPIPReply
        do {
            reply = try session.call(
                operation.code, operation.parameters(handle: object.handle, offset: offset, count: count),
                dataIn: .stream(limit: Int(count), sink: sink))
        } catch {
            // A cut connection leaves good bytes to resume from; a peer that broke the protocol
            // does not: what it sent in this request is dropped.
            if case .protocolViolation = error { try discardSince(offset) }
            throw .camera(error)
        }
        if let writeFailure {
            try discardSince(offset)
            throw .spool(writeFailure)
        }
        return reply
    }

    private func discardSince(_ offset: Int64) throws(DownloadFailure) {
        do { try incoming.truncate(to: offset) } catch { throw .spool(error) }
    }
}
