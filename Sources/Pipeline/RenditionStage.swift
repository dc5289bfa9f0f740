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

/// The rendition thread of a run whose destinations take smaller copies, one per spec they
/// name. It decodes each photo as it downloads (from the growing spool file) for the streamed
/// spec (``SpoolDestinations/streamedRendition``), so that when the photo is committed only its
/// last rows, the resampling and the encoding remain; the other specs, and a photo committed
/// without that (a hot folder's, a retried one, one that arrived while another was decoded), are
/// made from the spooled file. A rendition is stored beside the photo, and only then may the
/// legs that take it go.
///
/// One thread, one decoder per spec, reused photo after photo: a 2-core box needs the other core
/// for downloads and uploads, and a photo that waits is decoded from the spool at disk speed.
/// Its decoding and encoding take their turn in the process's ``PicturePool`` as delivery work
/// (before any page's picture): a slot is held only while the CPU works (a batch of arrived
/// bytes fed, a rendition finished or made whole), never while a download waits for the network.
///
/// `@unchecked Sendable`: `spool`, `specs`, `bus` and `pool` are immutable after init; the makers are local to `run()`'s thread.
final class RenditionStage: @unchecked Sendable {
    private let spool: Spool
    private let specs: [String: RenditionSpec]
    private let bus: RunEventBus
    private let pool: PicturePool

    init(spool: Spool, specs: [RenditionSpec], bus: RunEventBus, pool: PicturePool = .shared) {
        self.spool = spool
        self.specs = Dictionary(specs.map { ($0.key, $0) }) { first, _ in first }
        self.bus = bus
        self.pool = pool
    }

    /// Runs until the spool is closed. Photos left without a rendition get one next run.
    func run() {
        var makers: [String: RenditionMaker] = [:]
        for (key, spec) in specs {
            do { makers[key] = try RenditionMaker(spec: spec) } catch {
                bus.publish(
                    .run(.notice("renditions of \(spec.summary) cannot be made (\(error)); photos are sent as originals", .warning)))
            }
        }
        while let work = spool.claimRenditionWork() {
            switch work {
            case .committed(let entry, let spec):
                let started = Date()
                let made = pool.delivery {
                    make(entry, spec: spec, with: makers[spec], started: started, streamed: false) { maker throws(RenditionError) in
                        try maker.make(source: spool.photoURL(for: entry), destination: spool.renditionWorkURL(for: entry, spec: spec))
                    }
                }
                settle(entry, made)
            case .growing(let photo, let spec):
                let maker = makers[spec]
                guard let maker, let entry = follow(photo, spec: spec, with: maker) else {
                    maker?.abandon()
                    spool.dropRenditionOffer(photo)
                    continue
                }
                // Timed from the commit: what the photo waited for its rendition once spooled.
                let made = pool.delivery {
                    make(entry, spec: spec, with: maker, started: entry.spooledAt, streamed: true) { maker throws(RenditionError) in
                        try maker.finish(photo: photo.fileDescriptor, name: spool.photoURL(for: entry).path)
                    }
                }
                settle(entry, made)
            }
        }
    }

    /// Feeds `photo` to the maker as it downloads, offering an upright photo's rendition for
    /// upload as its file grows. The committed entry once the download is committed (its
    /// rendition is then this thread's to finish); nil when the download was abandoned or the
    /// run stops first (the offered rendition is then withdrawn).
    private func follow(_ photo: GrowingPhoto, spec: String, with maker: RenditionMaker) -> SpoolEntry? {
        maker.begin(destination: spool.renditionWorkURL(for: photo.entry, spec: spec))
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
                // The bytes that arrived are decoded in a slot of the pool; the next ones are
                // awaited without one.
                let read = pool.delivery { () -> Bool in
                    while offset < readable && wantsBytes {
                        let want = Int(min(Int64(chunk.count), readable - offset))
                        var count: Int
                        repeat {
                            count = chunk.withUnsafeMutableBytes { pread(photo.fileDescriptor, $0.baseAddress, want, off_t(offset)) }
                        } while count < 0 && errno == EINTR
                        guard count > 0 else { return false }
                        offset += Int64(count)
                        wantsBytes = chunk.withUnsafeBytes { maker.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) } == .needsBytes
                        if let offered = upload, !maker.writesAsItDecodes {
                            // The photo goes as the original after all: the worker need not wait.
                            spool.withdrawRendition(offered)
                            upload = nil
                        } else if let upload {
                            spool.renditionGrew(upload, to: maker.written)
                        } else if maker.writesAsItDecodes, maker.written > 0 {
                            upload = spool.offerRendition(of: photo, spec: spec, written: maker.written)
                        }
                    }
                    return true
                }
                guard read else { return stop() }
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

    /// Makes the rendition for `spec` (at ``Spool/renditionWorkURL(for:spec:)``) with `body` and
    /// says what became of it. `started`: when the photo began to wait for its rendition (for one
    /// decoded as it arrived, its commit).
    private func make(
        _ entry: SpoolEntry, spec: String, with maker: RenditionMaker?, started: Date, streamed: Bool,
        _ body: (RenditionMaker) throws(RenditionError) -> RenditionMaker.Outcome
    ) -> SpoolRendition {
        guard let maker else {
            return .original(spec: spec, photoKey: entry.idempotencyKey, reason: "renditions cannot be made on this machine")
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
                return .made(spec: spec, photoKey: entry.idempotencyKey, bytes: bytes, width: width, height: height)
            case .original(let reason):
                bus.publish(.upload(.sentAsOriginal(entry.photoRef, reason: reason)))
                return .original(spec: spec, photoKey: entry.idempotencyKey, reason: reason)
            }
        } catch {
            unlink(spool.renditionWorkURL(for: entry, spec: spec).path)
            bus.publish(.upload(.sentAsOriginal(entry.photoRef, reason: error.description)))
            return .original(spec: spec, photoKey: entry.idempotencyKey, reason: error.description)
        }
    }
}
