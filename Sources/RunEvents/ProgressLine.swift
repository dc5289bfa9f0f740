import Foundation
import RelayCore

/// The live progress line of a run, from its state (pure, so its wording is tested). Each
/// destination of the run has its part in the same words, named by its label when there are
/// several: "queued 3, uploading 1, done 12" alone, "web queued 3, done 12 · archive queued 0, done 12".
public enum ProgressLine {
    public static func format(_ state: RunState, at now: Date) -> String {
        var parts: [String] = []
        if let capture = state.capture { parts.append(capture.text(at: now)) }
        let delivering = state.destinations.filter(\.inRun)
        for destination in delivering {
            var counts = ["queued \(destination.queue.queued)"]
            if destination.uploading > 0 { counts.append("uploading \(destination.uploading)") }
            counts.append("done \(destination.delivered)")
            if destination.failed > 0 { counts.append("failed \(destination.failed)") }
            parts.append((delivering.count > 1 ? "\(destination.label) " : "") + counts.joined(separator: ", "))
        }
        parts.append(String(format: "%.1f MB/s", state.bytesPerSecond(at: now) / 1_000_000))
        if let latency = state.lastShutterToGallery {
            parts.append(String(format: "last shutter→gallery %.2fs", latency))
        }
        if state.retries > 0 { parts.append("retries \(state.retries)") }
        if state.skipped > 0 { parts.append("skipped \(state.skipped)") }
        if state.alreadyTaken > 0 { parts.append("taken before \(state.alreadyTaken)") }
        if state.spoolFull { parts.append("spool full, waiting") }
        for source in state.sources {
            if let status = source.status { parts.append(status) }
            if let battery = source.batteryPercent { parts.append("battery \(battery) %") }
            if let shots = source.card?.freeShots {
                parts.append("card \(shots) shots")
            } else if let bytes = source.card?.freeBytes {
                parts.append("card \(ByteCountText.format(bytes)) free")
            }
        }
        for destination in state.destinations where !destination.reachable {
            parts.append("\(destination.label) unreachable")
        }
        return parts.joined(separator: " · ")
    }
}
