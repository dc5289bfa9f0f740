import Foundation
import RelayCore
import RunEvents
import Uploader

/// The end of a named session that ended cleanly with every photo delivered: each destination
/// gets the manifest, then the `_DONE` marker (manifest-then-done), so a consumer that sees the
/// marker can trust the set. A destination whose manifest fails gets no marker; the next run
/// with the same session tries again. A set already announced is not announced twice.
enum SessionCompletion {
    static func announce(
        _ ledger: SessionLedger, configs: [RequestConfig], environment: [String: String], policy: DeliveryPolicy,
        cancellation: UploadCancellation, bus: RunEventBus
    ) {
        let record = ledger.snapshot
        func report(_ config: RequestConfig, _ outcome: SessionOutcome) {
            bus.publish(.destination(config.label, .session(name: ledger.name, outcome: outcome)))
        }
        for config in configs {
            let id = config.id.uuidString
            guard record.needsAnnouncement(to: id) else { continue }
            guard let manifest = SessionManifest.build(record, destinationID: id, label: config.label) else {
                report(config, .incomplete)
                continue
            }
            do {
                let destination = try Destinations.make(config, environment: environment, policy: policy, cancellation: cancellation)
                let (manifestFile, markerFile) = ledger.scratchFiles
                try AtomicFile.write(try manifest.encoded(), to: manifestFile)
                try AtomicFile.write(Data(), to: markerFile)
                defer {
                    try? FileManager.default.removeItem(at: manifestFile)
                    try? FileManager.default.removeItem(at: markerFile)
                }
                guard let sent = destination.deliverSet(manifest: manifestFile.path, marker: markerFile.path, session: ledger.name)
                else { continue }
                guard sent.decision == .delivered else {
                    report(
                        config,
                        .manifestFailed(
                            "the manifest or its marker was not delivered (\(sent.problem ?? "?")); "
                                + "run again with --session \(ledger.name) once it can be reached"))
                    continue
                }
                try ledger.markAnnounced(to: id)
                report(config, .complete(photos: manifest.photos.count))
            } catch {
                report(config, .manifestFailed("the manifest could not be sent (\(error))"))
            }
        }
    }
}
