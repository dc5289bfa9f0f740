import Foundation
import PTPIP
import PTPWire
import Spool

/// Why a download did not complete. A camera failure ends the session (relay reconnects and
/// resumes from the bytes it has); a spool failure leaves the session usable and the photo on
/// the card until there is room.
enum DownloadFailure: Error {
    case camera(PTPIPError)
    case spool(SpoolError)
}

/// Copies one object from the camera into an incoming spool file, in chunks (GetPartialObject),
/// starting at the bytes the file already holds: a download cut by a dropped connection resumes
/// where it stopped instead of starting again.
struct ObjectDownload {
    let session: CameraSession
    let object: CameraObject
    let incoming: IncomingPhoto
    /// Bytes asked for per GetPartialObject.
    let chunkSize: Int

    /// The object's size as its ObjectInfo gives it.
    var size: Int64 { Int64(object.info.compressedSize) }

    /// Whether the camera can send parts of an object; without it the object comes whole
    /// (streamed all the same) and a cut download starts again.
    var resumable: Bool { session.deviceInfo.supports(.getPartialObject) }

    /// Downloads the rest of the object; on return the incoming file holds all of it.
    /// `beforeChunk` runs between two requests: it may end the download (relay stopping) or use
    /// the camera for something that cannot wait for the rest of the file (a timed shot).
    func run(beforeChunk: () throws(PTPIPError) -> Void) throws(DownloadFailure) {
        if !resumable && incoming.byteCount > 0 {
            do { try incoming.truncate(to: 0) } catch { throw .spool(error) }
        }
        while incoming.byteCount < size {
            do { try beforeChunk() } catch { throw .camera(error) }
            let offset = incoming.byteCount
            let want = resumable ? min(Int64(chunkSize), size - offset) : size
            let reply = try transfer(offset: offset, count: want)
            let received = Int64(reply.dataByteCount)
            guard reply.code.isOK else {
                try discardSince(offset)
                throw .camera(.operationFailed(peer: session.address, operation: operation, response: reply.code))
            }
            if resumable, let reported = reply.response.parameters.first, Int64(reported) != received {
                try discardSince(offset)
                throw .camera(.protocolViolation(peer: session.address,
                    detail: "GetPartialObject reported \(reported) bytes but sent \(received) (\(object.info.filename) at \(offset))"))
            }
            guard received > 0 else {
                throw .camera(.protocolViolation(peer: session.address,
                    detail: "\(operation) sent no data for \(object.info.filename) at byte \(offset) of \(size)"))
            }
            if !resumable && received != size {
                try discardSince(0)
                throw .camera(.protocolViolation(peer: session.address,
                    detail: "GetObject sent \(received) of the \(size) bytes of \(object.info.filename)"))
            }
        }
    }

    private var operation: PTPOperationCode { resumable ? .getPartialObject : .getObject }

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
            let parameters = resumable ? [object.handle, UInt32(offset), UInt32(count)] : [object.handle]
            reply = try session.call(operation, parameters, dataIn: .stream(limit: Int(count), sink: sink))
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
