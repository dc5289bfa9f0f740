import Foundation
import RelayCore
import Spool
import XCTest

/// A whole run, modelled on the pure ledger: two sources commit photos while two workers per
/// destination drain them (a gallery fed by the queue, a backup, a low-priority archive), every
/// attempt answered at random, the clock stepping, and relay killed at random moments (the
/// ledger is then rebuilt from the sidecars, as a restart does). Whatever the seed, every photo
/// reaches every destination, and each destination records it delivered exactly once.
final class LedgerRunTests: XCTestCase {
    private struct Leg: Hashable {
        var id: String
        var destination: String
    }

    /// What the run did, for the checks.
    private struct Outcome {
        var delivered: [Leg: Int] = [:]
        var removed: Set<String> = []
        var failed: [String: PhotoDestinations.Settlement] = [:]
        var kills = 0
        var steps = 0
    }

    private let run = SpoolDestinations([
        SpoolDestination(id: "A", label: "gallery", takesGrowing: true), SpoolDestination(id: "B", label: "backup"),
        SpoolDestination(id: "C", label: "archive", lowPriority: true),
    ])

    func testEveryPhotoReachesEveryDestinationOnceThroughRetriesAndKills() {
        for seed in UInt64(1)...8 {
            let outcome = simulate(seed: seed, photos: 40, refusals: false)
            XCTAssertGreaterThan(outcome.kills, 0, "seed \(seed): the run was killed at least once")
            XCTAssertEqual(outcome.removed.count, 40, "seed \(seed): every photo left the spool delivered")
            XCTAssertTrue(outcome.failed.isEmpty, "seed \(seed)")
            for number in 1...40 {
                for destination in ["A", "B", "C"] {
                    XCTAssertEqual(
                        outcome.delivered[Leg(id: "photo\(number)", destination: destination)], 1,
                        "seed \(seed): photo \(number) recorded delivered to \(destination) exactly once")
                }
            }
        }
    }

    func testARefusedPhotoGoesToFailedOnlyOnceEveryDestinationSettled() {
        for seed in UInt64(11)...16 {
            let outcome = simulate(seed: seed, photos: 30, refusals: true)
            XCTAssertFalse(outcome.failed.isEmpty, "seed \(seed): some photo was refused")
            XCTAssertEqual(outcome.removed.count + outcome.failed.count, 30, "seed \(seed): every photo settled")
            XCTAssertTrue(outcome.removed.isDisjoint(with: outcome.failed.keys), "seed \(seed): removed or failed, never both")
            for (id, settlement) in outcome.failed {
                guard case .refused = settlement else { return XCTFail("seed \(seed): \(id) failed as \(settlement)") }
            }
            for (leg, count) in outcome.delivered {
                XCTAssertEqual(count, 1, "seed \(seed): \(leg.id) recorded delivered to \(leg.destination) once")
            }
        }
    }

    private func simulate(seed: UInt64, photos total: Int, refusals: Bool) -> Outcome {
        var random = SeededRandom(seed: seed)
        var now = Date(timeIntervalSince1970: 1_800_000_000)
        let limits = SpoolLimits(maxPhotos: 12, maxBytes: 100_000)
        var ledger = PhotoLedger(destinations: run)
        var sidecars: [String: SpoolEntry] = [:]
        var attempts: Set<Leg> = []
        var outcome = Outcome()
        var committed = 0

        /// Runs what the ledger decided, as the spool does: sidecars written from its word, settled photos finished.
        func perform(_ step: PhotoLedger.Step) {
            for action in step.actions {
                switch action {
                case .saveSidecar(let id):
                    if let entry = ledger.sidecar(id) { sidecars[id] = entry }
                case .finish(let entry, let settlement):
                    switch settlement {
                    case .waiting: XCTFail("finished while waiting")
                    case .delivered: outcome.removed.insert(entry.id)
                    case .refused: outcome.failed[entry.id] = settlement
                    }
                    XCTAssertNil(ledger.sidecar(entry.id), "no sidecar write while it is being finished")
                    sidecars[entry.id] = nil
                    perform(ledger.apply(.finished(id: entry.id)))
                default:
                    break
                }
            }
        }
        func answer(for destination: String) -> DestinationResult {
            let roll = Int.random(in: 0..<100, using: &random)
            if refusals && destination == "B" && roll < 15 { return .failed(error: "refused", statusCode: 403) }
            return roll < 65 ? .delivered : .retry(after: Double.random(in: 0...5, using: &random), error: "HTTP 503", statusCode: 503)
        }

        while outcome.steps < 20_000 {
            outcome.steps += 1
            if committed == total && ledger.counts.queued + ledger.counts.inFlight == 0 { break }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<25 where committed < total:
                // A source commits a photo when the spool has room.
                let bytes = Int64.random(in: 1_000...9_000, using: &random)
                guard ledger.hasRoom(forBytes: bytes, limits: limits) else { continue }
                committed += 1
                let id = "photo\(committed)"
                let (kept, _) = ledger.committing(id, fileName: "IMG.JPG", reservation: nil, offer: nil)
                var entry = SpoolEntry(
                    id: id, sequence: kept.sequence, source: committed.isMultiple(of: 2) ? "camera:X" : "folder:/drop",
                    cameraFileName: "IMG_\(committed).JPG", uploadName: kept.uploadName, bytes: bytes, capturedAt: now, spooledAt: now,
                    idempotencyKey: id)
                entry.destinations = Dictionary(uniqueKeysWithValues: run.all.map { ($0.id, DestinationProgress(label: $0.label)) })
                sidecars[id] = entry
                perform(ledger.apply(.admit(entry, offer: nil, now: now, pid: 1)))
            case 25..<55:
                // An idle worker (of two per destination) claims what is due for its destination.
                let destination = ["A", "B", "C"].randomElement(using: &random)!
                guard attempts.filter({ $0.destination == destination }).count < 2 else { continue }
                let step = ledger.apply(.claim(destination: destination, growing: .none, now: now, pid: 1))
                guard case .handOut(.spooled(let claimed)) = step.answer else { continue }
                let leg = Leg(id: claimed.id, destination: destination)
                XCTAssertFalse(attempts.contains(leg), "seed \(seed): \(leg) handed out while in flight")
                attempts.insert(leg)
                perform(step)
            case 55..<85:
                // An attempt ends.
                guard let leg = attempts.randomElement(using: &random) else { continue }
                attempts.remove(leg)
                let result = answer(for: leg.destination)
                if result == .delivered { outcome.delivered[leg, default: 0] += 1 }
                perform(ledger.apply(.settle(id: leg.id, destination: leg.destination, result, now: now)))
            case 85..<97:
                now = now.addingTimeInterval(Double.random(in: 0...3, using: &random))
            default:
                // Killed: what was in flight is lost unrecorded, and a restart reads the sidecars.
                outcome.kills += 1
                attempts = []
                ledger = PhotoLedger(destinations: run)
                _ = ledger.apply(.numbering(persisted: 0, highestFound: sidecars.values.map(\.sequence).max() ?? committed))
                for entry in sidecars.values.sorted(by: { $0.sequence < $1.sequence }) {
                    perform(ledger.apply(.found(entry, FoundFiles())))
                }
                perform(ledger.apply(.started(renditionFiles: [:])))
            }
        }
        XCTAssertLessThan(outcome.steps, 20_000, "seed \(seed): the run ended (\(committed) of \(total) committed, \(ledger.counts) left)")
        return outcome
    }
}
