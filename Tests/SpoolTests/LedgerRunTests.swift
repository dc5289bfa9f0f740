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

    private let run = SpoolDestinations(
        primary: .init(id: "A", label: "gallery", lowPriority: false),
        others: [.init(id: "B", label: "backup", lowPriority: false), .init(id: "C", label: "archive", lowPriority: true)])

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
        var ledger = PhotoLedger(destinations: run, makesRenditions: false)
        var sidecars: [String: SpoolEntry] = [:]
        var attempts: [Leg: SpoolEntry] = [:]
        var outcome = Outcome()
        var committed = 0

        /// The sidecar as the spool writes it: the entry with the ledger's progress.
        func save(_ id: String) {
            guard var entry = ledger.entry(id) else { return }
            entry.destinations = ledger.progress[id] ?? entry.destinations
            sidecars[id] = entry
        }
        func finishIfSettled(_ id: String) {
            guard let (_, map) = ledger.beginFinishing(id) else { return }
            switch PhotoDestinations.settlement(map) {
            case .waiting: XCTFail("finished while waiting")
            case .delivered: outcome.removed.insert(id)
            case let settlement: outcome.failed[id] = settlement
            }
            sidecars[id] = nil
            ledger.endFinishing(id)
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
                let sequence = ledger.takeSequence()
                var entry = SpoolEntry(
                    id: "photo\(committed)", sequence: sequence, source: committed.isMultiple(of: 2) ? "camera:X" : "folder:/drop",
                    cameraFileName: "IMG_\(committed).JPG",
                    uploadName: ledger.uniqueUploadName(for: "IMG.JPG", sequence: sequence, id: "photo\(committed)"),
                    bytes: bytes, capturedAt: now, spooledAt: now, idempotencyKey: "photo\(committed)")
                entry.destinations = Dictionary(
                    uniqueKeysWithValues: ([run.primary] + run.others).map { ($0.id, DestinationProgress(label: $0.label)) })
                sidecars[entry.id] = entry
                ledger.admit(entry, inFlight: false)
            case 25..<55:
                // An idle worker (of two per destination) claims what is due for its destination.
                let destination = ["A", "B", "C"].randomElement(using: &random)!
                guard attempts.keys.filter({ $0.destination == destination }).count < 2 else { continue }
                let claimed = destination == "A" ? ledger.claimQueued(at: now, pid: 1) : ledger.claim(for: destination, at: now)
                guard let claimed else { continue }
                let leg = Leg(id: claimed.id, destination: destination)
                XCTAssertNil(attempts[leg], "seed \(seed): \(leg) handed out while in flight")
                attempts[leg] = claimed
                save(claimed.id)
            case 55..<85:
                // An attempt ends.
                guard let leg = attempts.keys.randomElement(using: &random), let entry = attempts.removeValue(forKey: leg) else { continue }
                let result = answer(for: leg.destination)
                if result == .delivered { outcome.delivered[leg, default: 0] += 1 }
                if leg.destination == "A" {
                    switch result {
                    case .delivered:
                        _ = ledger.settleQueueFed(entry, .delivered, error: nil, statusCode: nil)
                    case .retry(let after, let error, let statusCode):
                        ledger.requeue(
                            ledger.recordRetry(entry, error: error, statusCode: statusCode), notBefore: now.addingTimeInterval(after))
                    case .failed(let error, let statusCode):
                        _ = ledger.settleQueueFed(entry, .failed, error: error, statusCode: statusCode)
                    }
                } else {
                    _ = ledger.settle(leg.id, for: leg.destination, result, at: now)
                }
                save(leg.id)
                finishIfSettled(leg.id)
            case 85..<97:
                now = now.addingTimeInterval(Double.random(in: 0...3, using: &random))
            default:
                // Killed: what was in flight is lost unrecorded, and a restart reads the sidecars.
                outcome.kills += 1
                attempts = [:]
                ledger = PhotoLedger(destinations: run, makesRenditions: false)
                ledger.startNumbering(persisted: 0, highestFound: sidecars.values.map(\.sequence).max() ?? committed)
                for entry in sidecars.values.sorted(by: { $0.sequence < $1.sequence }) {
                    let found = ledger.resume(entry)
                    if found.queued { ledger.resumeQueued(found.entry, needsRendition: false) }
                }
                for id in ledger.lingering.keys { finishIfSettled(id) }
            }
        }
        XCTAssertLessThan(outcome.steps, 20_000, "seed \(seed): the run ended (\(committed) of \(total) committed, \(ledger.counts) left)")
        return outcome
    }
}
