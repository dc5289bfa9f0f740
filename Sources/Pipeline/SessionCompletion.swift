import Foundation
import RelayCore
import Uploader

/// The end of a named session that ended cleanly with every photo delivered: each destination
/// gets the manifest, then the `_DONE` marker (manifest-then-done), so a consumer that sees the
/// marker can trust the set. A destination whose manifest fails gets no marker; the next run
/// with the same session tries again. A set already announced is not announced twice.
enum SessionCompletion {
    static func announce(
        _ ledger: SessionLedger, configs: [RequestConfig], environment: [String: String], policy: DeliveryPolicy,
        cancellation: UploadCancellation, console: RunConsole
    ) {
        let record = ledger.snapshot
        for config in configs {
            let id = config.id.uuidString
            guard record.needsAnnouncement(to: id) else { continue }
            guard let manifest = SessionManifest.build(record, destinationID: id, label: config.label) else {
                console.log("session \(ledger.name) → \(config.label): not every photo has arrived there yet; "
                    + "its manifest is sent by a later run with --session \(ledger.name)")
                continue
            }
            do {
                let destination = try Destinations.make(config, environment: environment, policy: policy, cancellation: cancellation)
                let scratch = ledger.manifestScratch
                try AtomicFile.write(try manifest.encoded(), to: scratch)
                defer { try? FileManager.default.removeItem(at: scratch) }
                guard let sent = destination.deliverSetFile(scratch.path, name: "manifest.json", session: ledger.name) else { continue }
                guard sent.decision == .delivered else {
                    console.log("session \(ledger.name) → \(config.label): the manifest was not delivered (\(sent.problem ?? "?")); "
                        + "run again with --session \(ledger.name) once it can be reached")
                    continue
                }
                try AtomicFile.write(Data(), to: scratch)
                let marker = destination.deliverSetFile(scratch.path, name: "_DONE", session: ledger.name)
                guard marker?.decision == .delivered else {
                    console.log("session \(ledger.name) → \(config.label): the _DONE marker was not delivered "
                        + "(\(marker?.problem ?? "?")); run again with --session \(ledger.name) once it can be reached")
                    continue
                }
                try ledger.markAnnounced(to: id)
                console.log("session \(ledger.name) → \(config.label): complete, \(manifest.photos.count) photos in its manifest")
            } catch {
                console.log("session \(ledger.name) → \(config.label): the manifest could not be sent (\(error))")
            }
        }
    }
}
