import Foundation
import Intake
import RelayCore
import Rendition
import RunEvents
import Spool

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The rendition thread of a run whose config sends gallery-sized copies. It decodes each photo
/// as it downloads (from the growing spool file), so that when the photo is committed only its
/// last rows, the resampling and the encoding remain; a photo committed without that (a hot
/// folder's, a retried one, one that arrived while another was decoded) is made from the spooled
/// file. The rendition is stored beside the photo, and only then may the uploader have it.
///
/// One thread, one decoder, reused photo after photo: a 2-core box needs the other core for
/// downloads and uploads, and a photo that waits is decoded from the spool at disk speed.
///
/// `@unchecked Sendable`: `spool`, `spec` and `bus` are immutable after init; the `RenditionMaker` is local to `run()`'s thread.
final class RenditionStage: @unchecked Sendable {
    private let spool: Spool
    private let spec: RenditionSpec
    private let bus: RunEventBus

    init(spool: Spool, spec: RenditionSpec, bus: RunEventBus) {
        self.spool = spool
        self.spec = spec
        self.bus = bus
    }

    /// Runs until the spool is closed. Photos left without a rendition get one next run.
    func run() {
        let maker: RenditionMaker?
        do { maker = try RenditionMaker(spec: spec) } catch {
            bus.publish(.run(.notice("renditions cannot be made (\(error)); photos are sent as originals", .warning)))
            maker = nil
        }
        while let work = spool.claimRenditionWork() {
            switch work {
            case .committed(let entry):
                let started = Date()
                settle(
                    entry,
                    make(entry, with: maker, started: started, streamed: false) { maker throws(RenditionError) in
                        try maker.make(source: spool.photoURL(for: entry), destination: spool.renditionWorkURL(for: entry))
                    })
            case .growing(let photo):
                guard let maker, let entry = follow(photo, with: maker) else {
                    maker?.abandon()
                    spool.dropRenditionOffer(photo)
                    continue
                }
                // Timed from the commit: what the photo waited for its rendition once spooled.
                settle(
                    entry,
                    make(entry, with: maker, started: entry.spooledAt, streamed: true) { maker throws(RenditionError) in
                        try maker.finish(photo: photo.fileDescriptor, name: spool.photoURL(for: entry).path)
                    })
            }
        }
    }

    /// Feeds `photo` to the maker as it downloads, offering an upright photo's rendition for
    /// upload as its file grows. The committed entry once the download is committed (its
    /// rendition is then this thread's to finish); nil when the download was abandoned or the
    /// run stops first (the offered rendition is then withdrawn).
    private func follow(_ photo: GrowingPhoto, with maker: RenditionMaker) -> SpoolEntry? {
        maker.begin(destination: spool.renditionWorkURL(for: photo.entry))
        var upload: GrowingPhoto?
        var offset: Int64 = 0
        var wantsBytes = true
        var chunk = [UInt8](repeating: 0, count: RenditionMaker.chunkSize)
        func stop() -> SpoolEntry? {
            if let upload { spool.withdrawRendition(upload) }
            return nil
        }
        while true {
            // Once the maker has enough, only the end of the download is awaited; in slices, to see
            // the spool closed (a stop that does not end the download).
            switch photo.waitForBytes(beyond: wantsBytes ? offset : Int64.max - 1, timeout: 0.5) {
            case .available(let readable):
                while offset < readable && wantsBytes {
                    let want = Int(min(Int64(chunk.count), readable - offset))
                    var count: Int
                    repeat {
                        count = chunk.withUnsafeMutableBytes { pread(photo.fileDescriptor, $0.baseAddress, want, off_t(offset)) }
                    } while count < 0 && errno == EINTR
                    guard count > 0 else { return stop() }
                    offset += Int64(count)
                    wantsBytes = chunk.withUnsafeBytes { maker.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) } == .needsBytes
                    if let offered = upload, !maker.writesAsItDecodes {
                        // The photo goes as the original after all: the worker need not wait.
                        spool.withdrawRendition(offered)
                        upload = nil
                    } else if let upload {
                        spool.renditionGrew(upload, to: maker.written)
                    } else if maker.writesAsItDecodes, maker.written > 0 {
                        upload = spool.offerRendition(of: photo, written: maker.written)
                    }
                }
            case .pending:
                if spool.isClosed { return stop() }
            case .abandoned:
                return stop()
            case .ended:
                guard case .committed(let entry) = photo.ended else { return stop() }
                return entry
            }
        }
    }

    private func settle(_ entry: SpoolEntry, _ record: SpoolRendition) {
        do {
            try spool.finishRendition(entry, record)
        } catch {
            bus.publish(.upload(.sentAsOriginal(entry.photoRef, reason: "its rendition could not be stored (\(error))")))
        }
    }

    /// Makes the rendition (at ``Spool/renditionWorkURL(for:)``) with `body` and says what
    /// became of it. `started`: when the photo began to wait for its rendition (for one decoded
    /// as it arrived, its commit).
    private func make(
        _ entry: SpoolEntry, with maker: RenditionMaker?, started: Date, streamed: Bool,
        _ body: (RenditionMaker) throws(RenditionError) -> RenditionMaker.Outcome
    ) -> SpoolRendition {
        guard let maker else {
            return .original(spec: spec.key, photoKey: entry.idempotencyKey, reason: "renditions cannot be made on this machine")
        }
        do {
            switch try body(maker) {
            case .made(let bytes, let width, let height, let notes):
                let milliseconds = Int((Date().timeIntervalSince(started) * 1000).rounded())
                bus.publish(
                    .upload(
                        .renditionMade(
                            entry.photoRef,
                            RenditionResult(
                                bytes: bytes, width: width, height: height,
                                milliseconds: milliseconds, notes: notes, duringDownload: streamed))))
                return .made(spec: spec.key, photoKey: entry.idempotencyKey, bytes: bytes, width: width, height: height)
            case .original(let reason):
                bus.publish(.upload(.sentAsOriginal(entry.photoRef, reason: reason)))
                return .original(spec: spec.key, photoKey: entry.idempotencyKey, reason: reason)
            }
        } catch {
            unlink(spool.renditionWorkURL(for: entry).path)
            bus.publish(.upload(.sentAsOriginal(entry.photoRef, reason: error.description)))
            return .original(spec: spec.key, photoKey: entry.idempotencyKey, reason: error.description)
        }
    }
}
