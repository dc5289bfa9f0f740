import Foundation
import Intake
import RelayCore
import Rendition
import RunEvents
import Spool

/// The rendition thread of a run whose config sends gallery-sized copies: it makes each
/// photo's rendition as soon as the photo is committed to the spool, stores it beside the photo,
/// and only then lets the uploader have the photo. One thread: a rendition takes a fraction of a
/// second and a 2-core box needs the other core for downloads and uploads.
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
        while let entry = spool.claimRendition() {
            let record = make(entry, with: maker)
            do {
                try spool.finishRendition(entry, record)
            } catch {
                bus.publish(.upload(.sentAsOriginal(entry.photoRef, reason: "its rendition could not be stored (\(error))")))
            }
        }
    }

    private func make(_ entry: SpoolEntry, with maker: RenditionMaker?) -> SpoolRendition {
        guard let maker else {
            return .original(spec: spec.key, photoKey: entry.idempotencyKey, reason: "renditions cannot be made on this machine")
        }
        let started = Date()
        do {
            switch try maker.make(source: spool.photoURL(for: entry), destination: spool.renditionWorkURL(for: entry)) {
            case .made(let bytes, let width, let height, let notes):
                let milliseconds = Int((Date().timeIntervalSince(started) * 1000).rounded())
                bus.publish(
                    .upload(
                        .renditionMade(
                            entry.photoRef,
                            RenditionResult(
                                bytes: bytes, width: width, height: height,
                                milliseconds: milliseconds, notes: notes))))
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
