import Foundation
import RelayCore

/// The console's wording of events: one line per event worth a line, none for the rest
/// (progress, queue changes, battery readings: the progress line shows those).
public struct EventSentence: Sendable {
    /// Name the destination in every line about a delivery or a destination (a run with several,
    /// each named the same way); with one, "uploaded X" and "the gallery" say enough.
    public var namesDestinations = false
    /// Prefix each source's lines with its label (a run with several sources).
    public var namesSources = false

    public init(namesDestinations: Bool = false, namesSources: Bool = false) {
        self.namesDestinations = namesDestinations
        self.namesSources = namesSources
    }

    /// Learns what the run is made of from its start.
    public mutating func learn(_ event: RunEvent) {
        if case .run(.started(let run)) = event {
            namesDestinations = run.destinations.count > 1
            namesSources = run.sources.count > 1
        }
    }

    /// The line for `event`, or nil when it is not logged.
    public func line(for event: RunEvent) -> String? {
        switch event {
        case .run(let event): line(for: event)
        case .source(let source, let event): line(for: event).map { namesSources ? "[\(source)] \($0)" : $0 }
        case .upload(let event): line(for: event)
        case .destination(let label, let event): line(for: event, destination: label)
        case .capture(let event): line(for: event)
        case .review(let event): line(for: event)
        }
    }

    private func line(for event: ReviewEvent) -> String? {
        switch event {
        case .held(let photo, let destinations):
            return "\(photo.name) is held for \(destinations.joined(separator: ", ")) until it is approved (relay review)"
        case .decided(let photo, let verdict, let by, let outcome):
            let what = verdict.map { $0 == .approved ? "approved" : "rejected" } ?? "decision undone"
            var parts: [String] = []
            if !outcome.released.isEmpty { parts.append("sending to \(outcome.released.joined(separator: ", "))") }
            if !outcome.rejected.isEmpty { parts.append("never sent to \(outcome.rejected.joined(separator: ", "))") }
            if !outcome.heldAgain.isEmpty { parts.append("held again for \(outcome.heldAgain.joined(separator: ", "))") }
            if !outcome.alreadySent.isEmpty {
                parts.append("already sent to \(outcome.alreadySent.joined(separator: ", ")), nothing changed there")
            }
            if !outcome.tooLate.isEmpty {
                parts.append("rejected too long ago to undo for \(outcome.tooLate.joined(separator: ", ")): it stands")
            }
            return "\(photo.name) \(what) by \(by)" + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
        case .selected(let photo, let marks, let camera, let outcome):
            var parts: [String] = []
            if !outcome.released.isEmpty { parts.append("sending to \(outcome.released.joined(separator: ", "))") }
            if !outcome.heldAgain.isEmpty { parts.append("held again for \(outcome.heldAgain.joined(separator: ", "))") }
            if !outcome.alreadySent.isEmpty {
                parts.append("already sent to \(outcome.alreadySent.joined(separator: ", ")), nothing changed there")
            }
            let what = marks.isEmpty ? "unmarked on \(camera)" : "marked \(marks) on \(camera)"
            return "\(photo.name) \(what)" + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
        }
    }

    private func line(for event: RunPhaseEvent) -> String? {
        switch event {
        case .started(let run):
            var line = "relay: \(run.sources.joined(separator: ", "))"
            if !run.destinations.isEmpty {
                line +=
                    " → "
                    + run.destinations.map { "\($0.target) (config \($0.label)\($0.lowPriority ? ", low priority" : ""))" }
                    .joined(separator: " + ")
            }
            line += ", \(run.workers) workers" + (run.rendition.map { ", sending renditions of \($0)" } ?? "")
            return line + (run.resumed > 0 ? ", \(run.resumed) photos resumed from the spool" : "")
        case .notice(let message, _):
            return message
        case .stopping(let grace):
            return "stopping: no new photos; waiting up to \(Int(grace))s for uploads in flight"
        case .stopped(let totals):
            let counts =
                totals.destinations.count > 1
                ? totals.destinations.map { "\($0.label) \($0.delivered) uploaded, \($0.failed) failed" }.joined(separator: " · ")
                : "\(totals.delivered) uploaded, \(totals.failed) failed"
            return "stopped: \(counts) this run; "
                + "\(totals.left) left in the spool (sent on the next run)"
                + (totals.failedInSpool > 0 ? ", \(totals.failedInSpool) in spool/failed (relay status)" : "")
                + (totals.held.isEmpty
                    ? ""
                    : "; held for review: "
                        + totals.held.sorted { $0.key < $1.key }.map { "\($0.value) for \($0.key)" }.joined(separator: ", ")
                        + " (relay review list)")
        case .dropped(let count):
            return "\(count) events not shown: the log fell behind (its reader is slow); uploads went on"
        case .spool:
            return nil
        }
    }

    private func line(for event: SourceEvent) -> String? {
        switch event {
        case .connecting, .battery, .card, .announced, .unusable:
            return nil
        case .connected(let camera):
            return "connected to \(camera.name) at \(camera.address) (\(camera.via))"
        case .lost(let reason, _, _, _):
            var lines = reason.components(separatedBy: "\n")
            lines[0] += "; trying again every few seconds"
            return lines.joined(separator: "\n")
        case .batteryLow(let percent):
            return "camera battery at \(percent) %: charge or swap it soon"
        case .cardLow(let shots):
            return "camera card nearly full: room for about \(shots) more shots"
        case .spooled(let spooled):
            return "spooled \(spooled.cameraFileName) (\(ByteCountText.format(spooled.photo.bytes)))"
                + (spooled.photo.photographer.map { " from \($0)" } ?? "")
        case .skipped(let name, let reason):
            return "skipped \(name): \(reason)"
        case .alreadyTaken(let photo):
            return photo.atStart ? nil : "\(photo.fileName) was taken before (matched \(photo.matched)): not sent again"
        case .spoolFull:
            return "spool full: waiting for uploads before taking more photos"
        case .notice(let message, _):
            return message
        }
    }

    private func line(for event: UploadEvent) -> String? {
        switch event {
        case .started, .progressed:
            return nil
        case .settled(let photo, let destination, let outcome):
            return line(for: outcome, photo: photo, destination: destination)
        case .renditionMade(let photo, let result):
            var line =
                "rendition \(photo.name) \(ByteCountText.format(photo.bytes)) → \(ByteCountText.format(result.bytes)) "
                + "(\(result.width)×\(result.height)) "
                + (result.duringDownload
                    ? "decoded as it downloaded, ready \(result.milliseconds) ms after it" : "in \(result.milliseconds) ms")
            for note in result.notes { line += "\nrendition \(photo.name): \(note)" }
            return line
        case .sentAsOriginal(let photo, let reason):
            return "\(photo.name) is sent as the original: \(reason)"
        case .notice(_, let message, _):
            return message
        }
    }

    private func line(for outcome: UploadOutcome, photo: PhotoRef, destination: String) -> String {
        let subject = namesDestinations ? "\(photo.name) → \(destination)" : photo.name
        switch outcome {
        case .delivered(let delivery):
            return String(
                format: "uploaded %@ (%@) %@ in %.2fs, %.2fs from shutter to %@%@",
                subject, ByteCountText.format(photo.bytes, sent: photo.renditionBytes), delivery.answer, delivery.seconds,
                delivery.shutterToGallery, namesDestinations ? destination : "gallery",
                delivery.duringDownload ? " (sent while downloading)" : "")
        case .retrying(let attempt, let reason, let retryIn):
            return String(format: "%@: attempt %d failed (%@); retrying in %.1fs", subject, attempt, reason, retryIn)
        case .interrupted:
            return "\(subject): upload interrupted by shutdown; it stays in the spool for the next run"
        case .failed(let reason, let keptIn):
            let retry = namesDestinations ? "relay retry --destination \(destination)" : "relay retry"
            if let keptIn { return "\(subject) FAILED for good: \(reason). It is in \(keptIn); fix the config, then \(retry)" }
            // Not set aside: with several destinations it goes to spool/failed once the others have
            // settled; alone, the spool could not move it.
            return "\(subject) FAILED for good: \(reason)" + (namesDestinations ? ". Fix the config, then \(retry)" : "; it stays queued")
        }
    }

    private func line(for event: DestinationEvent, destination label: String) -> String? {
        let name = namesDestinations ? "destination '\(label)'" : "the gallery"
        switch event {
        case .lost(let reason, let retryIn):
            return String(format: "%@ cannot be reached (%@); photos wait in the spool, next try in %.1fs", name, reason, retryIn)
        case .stillLost(let retryIn):
            return String(format: "%@ is still unreachable; next try in %.1fs", name, retryIn)
        case .found:
            return "\(name) is reachable again"
        case .queue:
            return nil
        case .session(let session, let outcome):
            switch outcome {
            case .complete(let photos):
                return "session \(session) → \(label): complete, \(photos) photos in its manifest"
            case .incomplete:
                return "session \(session) → \(label): not every photo has arrived there yet; "
                    + "its manifest is sent by a later run with --session \(session)"
            case .manifestFailed(let reason):
                return "session \(session) → \(label): \(reason)"
            }
        }
    }

    private func line(for event: CaptureEvent) -> String? {
        func shot(_ number: Int, _ of: Int?) -> String { "shot \(number)" + (of.map { " of \($0)" } ?? "") }
        switch event {
        case .fired(let number, let of, let busy):
            return "\(shot(number, of)): fired" + (busy > 0 ? " after \(busy) DeviceBusy answer(s)" : "")
        case .captured(let number, let of, let name):
            return "\(shot(number, of)): captured \(name)"
        case .failed(let number, let of, let reason):
            return "\(shot(number, of)) FAILED: \(reason)"
        case .missed(let number, let of, let reason):
            return "\(shot(number, of)) missed: \(reason)"
        case .paused:
            return "capture paused: the camera is gone; shots that fall due before it is back are missed"
        case .resumed(let camera, let seconds):
            return String(format: "capture resumes: %@ is back after %.0fs", camera, seconds)
        case .progress:
            return nil
        case .notice(let message, _):
            return message
        case .substituted(let planned, let used):
            return "the camera has no \(planned): \(planned) → \(used)"
        case .frame(let report):
            switch report.state {
            case .captured(let name): return "\(report.position): captured \(name)"
            case .failed(let reason): return "\(report.position) FAILED: \(reason)"
            }
        }
    }
}
