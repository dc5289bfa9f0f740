import Foundation
import RunEvents

/// `/metrics`: the run's state in the Prometheus text exposition format 0.0.4 (HELP and TYPE
/// lines, then samples; see prometheus.io "Exposition formats"). Counters count this run only:
/// they restart at 0 with relay, which Prometheus's `rate()` takes as a counter reset.
public enum MetricsText {
    public static func format(_ state: RunState, now: Date) -> String {
        var out = MetricsWriter()
        out.family("relay_photos_taken_total", .counter, "Photos taken into the spool this run, per source.") {
            state.sources.map { (["source": $0.label], Double($0.spooled)) }
        }
        out.family(
            "relay_photos_already_taken_total", .counter,
            "Photos a source declined because its seen log says they were taken before, per source."
        ) {
            state.sources.map { (["source": $0.label], Double($0.alreadyTaken)) }
        }
        out.family("relay_photos_delivered_total", .counter, "Photos delivered this run, per destination.") {
            state.destinations.map { (["destination": $0.label], Double($0.delivered)) }
        }
        out.family("relay_photos_failed_total", .counter, "Photos refused for good this run (kept for relay retry), per destination.") {
            state.destinations.map { (["destination": $0.label], Double($0.failed)) }
        }
        out.family("relay_upload_retries_total", .counter, "Upload attempts that failed and are tried again, per destination.") {
            state.destinations.map { (["destination": $0.label], Double($0.retries)) }
        }
        out.family("relay_bytes_sent_total", .counter, "Bytes of delivered uploads this run, per destination.") {
            state.destinations.map { (["destination": $0.label], Double($0.bytesSent)) }
        }
        out.family("relay_queue_depth", .gauge, "Photos a destination still has to take, by state.") {
            state.destinations.flatMap { destination in
                [
                    ("queued", destination.queue.queued), ("in_flight", destination.queue.inFlight),
                    ("failed", destination.queue.failed), ("held", destination.queue.held),
                ]
                .map { (["destination": destination.label, "state": $0.0], Double($0.1)) }
            }
        }
        if let spool = state.spool {
            out.family("relay_spool_photos", .gauge, "Photos in the spool, and of them those held for review.") {
                [(["held": "false"], Double(spool.photos - spool.heldPhotos)), (["held": "true"], Double(spool.heldPhotos))]
            }
            out.family("relay_spool_limit_photos", .gauge, "The most photos the spool takes (--spool-max-photos).") {
                [([:], Double(spool.maxPhotos))]
            }
        }
        out.family("relay_queue_oldest_wait_seconds", .gauge, "How long the photo that has waited longest for a destination has waited.") {
            state.destinations.compactMap { destination in
                destination.queue.oldestQueuedAt.map { (["destination": destination.label], max(0, now.timeIntervalSince($0))) }
            }
        }
        out.family("relay_destination_reachable", .gauge, "1 while a destination answers, 0 while relay waits for it.") {
            state.destinations.filter(\.inRun).map { (["destination": $0.label], $0.reachable ? 1 : 0) }
        }
        out.family(
            "relay_destination_in_run", .gauge,
            "1 for a destination this run delivers to, 0 for one that photos in the spool wait for but this run does not."
        ) {
            state.destinations.map { (["destination": $0.label], $0.inRun ? 1 : 0) }
        }
        out.family("relay_upload_bytes_per_second", .gauge, "Bytes delivered per second over the last \(Int(RunState.rateWindow)) seconds.")
        {
            [([:], state.bytesPerSecond(at: now))]
        }
        out.family("relay_camera_connected", .gauge, "1 while a source's camera is connected.") {
            state.sources.map { (["source": $0.label, "model": $0.camera?.model ?? ""], $0.connected ? 1 : 0) }
        }
        out.family("relay_camera_battery_percent", .gauge, "A camera's battery level, as it last reported it.") {
            state.sources.compactMap { source in source.batteryPercent.map { (["source": source.label], Double($0)) } }
        }
        out.family("relay_camera_card_free_bytes", .gauge, "Free space on a camera's card.") {
            state.sources.compactMap { source in source.card?.freeBytes.map { (["source": source.label], Double($0)) } }
        }
        out.family("relay_camera_card_free_shots", .gauge, "Shots that still fit on a camera's card, as the camera estimates.") {
            state.sources.compactMap { source in source.card?.freeShots.map { (["source": source.label], Double($0)) } }
        }
        out.histogram("relay_upload_seconds", "Duration of delivered upload attempts, every destination.", state.uploadSeconds)
        out.histogram(
            "relay_shutter_to_gallery_seconds", "From the shutter to the destination's answer, every destination.",
            state.shutterToGallery)
        if let capture = state.capture {
            out.family("relay_capture_shots", .gauge, "Timed-capture shots that fell due so far, by what became of them.") {
                [("captured", capture.captured), ("failed", capture.failed), ("missed", capture.missed)]
                    .map { (["outcome": $0.0], Double($0.1)) }
            }
            out.family("relay_capture_shots_planned", .gauge, "Shots the timed capture plans in all.") {
                capture.planned.map { [([:], Double($0))] } ?? []
            }
        }
        return out.text
    }
}

/// Writes families and samples in the exposition format.
struct MetricsWriter {
    enum Kind: String {
        case counter, gauge, histogram
    }

    private(set) var text = ""

    mutating func family(_ name: String, _ kind: Kind, _ help: String, samples: () -> [([String: String], Double)]) {
        header(name, kind, help)
        for (labels, value) in samples() { sample(name, labels.sorted { $0.key < $1.key }, value) }
    }

    mutating func histogram(_ name: String, _ help: String, _ histogram: Histogram) {
        header(name, .histogram, help)
        let bounds = histogram.bounds.map(Self.number) + ["+Inf"]
        for (bound, count) in zip(bounds, histogram.cumulativeCounts) {
            sample(name + "_bucket", [("le", bound)], Double(count))
        }
        sample(name + "_sum", [], histogram.sum)
        sample(name + "_count", [], Double(histogram.count))
    }

    private mutating func header(_ name: String, _ kind: Kind, _ help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    private mutating func sample(_ name: String, _ labels: [(key: String, value: String)], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    /// Integers without a fraction, others in Swift's shortest exact form; NaN and infinities as
    /// the format spells them.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// In a label value, backslash, double quote and line feed are escaped.
    static func escapeLabel(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// In HELP text, backslash and line feed are.
    static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
