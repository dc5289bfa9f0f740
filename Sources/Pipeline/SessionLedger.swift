import Foundation
import RelayCore

/// The named session's record on disk (`RELAY_HOME/sessions/NAME.json`), written atomically as
/// each photo reaches each destination, so a run that crashes leaves the next run with the same
/// `--session` everything its manifest needs. Shared by a run's workers: the record's box also
/// serializes its saves, so two workers never save out of order.
final class SessionLedger: Sendable {
    let name: String
    private let file: JSONStateFile<SessionRecord>
    private let record: LockedBox<SessionRecord>

    init(home: RelayHome, name: String) throws(StateFileError) {
        self.name = name
        file = JSONStateFile(url: home.root.appendingPathComponent("sessions", isDirectory: true).appendingPathComponent("\(name).json"))
        record = LockedBox(try file.load() ?? SessionRecord(session: name))
    }

    /// Where this session's manifest and (empty) marker are written before they are sent.
    var scratchFiles: (manifest: URL, marker: URL) {
        let base = file.url.deletingPathExtension()
        return (base.appendingPathExtension("manifest.json"), base.appendingPathExtension("done"))
    }

    /// Records a delivered file: its size and SHA-256 are read from `filePath` (the file sent).
    func recordDelivered(
        key: String, name: String, capturedAt: Date, bracket: BracketTag? = nil, destinationID: String, location: String,
        filePath: String, prefix: BodyPrefix? = nil
    ) throws {
        let url = URL(fileURLWithPath: filePath)
        let fileSize = (try FileManager.default.attributesOfItem(atPath: filePath)[.size] as? NSNumber)?.int64Value ?? 0
        // What the destination received: the stamped header, then the file from its pixels on.
        let size = prefix?.bodySize(fileSize: fileSize) ?? fileSize
        let digest = try SHA256Digest.of(fileAt: url, prefix: prefix)
        let delivery = SessionRecord.Delivery(location: location, size: size, sha256: digest.hex())
        try update {
            $0.record(key: key, name: name, capturedAt: capturedAt, bracket: bracket, destinationID: destinationID, delivery)
        }
    }

    var snapshot: SessionRecord { record.current }

    func markAnnounced(to destinationID: String) throws(StateFileError) {
        try update { $0.markAnnounced(to: destinationID) }
    }

    private func update(_ change: (inout SessionRecord) -> Void) throws(StateFileError) {
        try record.withLockedValue { (record: inout SessionRecord) throws(StateFileError) in
            var next = record
            change(&next)
            try file.save(next)
            record = next
        }
    }
}
