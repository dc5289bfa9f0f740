import Foundation
import RunEvents
import Testing

@testable import StatusPage

@Suite struct MetricsTextTests {
    let text = MetricsText.format(SampleRun.state(), now: SampleRun.now)
    var lines: [String] { text.split(separator: "\n").map(String.init) }

    @Test func countersCarryHelpAndType() {
        #expect(lines.contains("# TYPE relay_photos_taken_total counter"))
        #expect(lines.contains { $0.hasPrefix("# HELP relay_photos_taken_total ") })
        #expect(lines.contains("relay_photos_taken_total{source=\"ptpip://127.0.0.1:15740\"} 3"))
        #expect(lines.contains("relay_photos_delivered_total{destination=\"gallery\"} 3"))
        #expect(lines.contains("relay_bytes_sent_total{destination=\"gallery\"} 3000000"))
    }

    @Test func labelValuesAreEscaped() {
        #expect(lines.contains("relay_photos_failed_total{destination=\"backup \\\"b\\\"\"} 1"))
        #expect(MetricsWriter.escapeLabel("a\\b\"c\nd") == "a\\\\b\\\"c\\nd")
        #expect(MetricsWriter.escapeHelp("a\\b\nc \"q\"") == "a\\\\b\\nc \"q\"")
    }

    @Test func queuesAndCameras() {
        #expect(lines.contains("relay_queue_depth{destination=\"backup \\\"b\\\"\",state=\"queued\"} 2"))
        #expect(lines.contains("relay_queue_depth{destination=\"backup \\\"b\\\"\",state=\"failed\"} 1"))
        #expect(lines.contains("relay_queue_depth{destination=\"gallery\",state=\"in_flight\"} 0"))
        #expect(lines.contains("relay_queue_oldest_wait_seconds{destination=\"backup \\\"b\\\"\"} 5"))
        #expect(lines.contains("relay_destination_reachable{destination=\"gallery\"} 1"))
        #expect(lines.contains("relay_destination_reachable{destination=\"backup \\\"b\\\"\"} 0"))
        #expect(
            lines.contains("relay_queue_depth{destination=\"archive\",state=\"queued\"} 4"),
            "photos waiting for a destination outside the run")
        #expect(lines.contains("relay_destination_in_run{destination=\"archive\"} 0"))
        #expect(lines.contains("relay_destination_in_run{destination=\"gallery\"} 1"))
        #expect(
            !lines.contains { $0.hasPrefix("relay_destination_reachable{destination=\"archive\"}") },
            "relay does not try it: neither up nor down")
        #expect(lines.contains("relay_camera_connected{model=\"Canon EOS R50\",source=\"ptpip://127.0.0.1:15740\"} 1"))
        #expect(lines.contains("relay_camera_battery_percent{source=\"ptpip://127.0.0.1:15740\"} 80"))
        #expect(lines.contains("relay_camera_card_free_bytes{source=\"ptpip://127.0.0.1:15740\"} 12500000000"))
        #expect(lines.contains("relay_camera_card_free_shots{source=\"ptpip://127.0.0.1:15740\"} 812"))
    }

    @Test func histogramBucketsAreCumulative() {
        // Three uploads of 0.4 s: none at or below 0.25, all from 0.5 up; shutter to gallery 1.9 s.
        #expect(lines.contains("# TYPE relay_upload_seconds histogram"))
        #expect(lines.contains("relay_upload_seconds_bucket{le=\"0.25\"} 0"))
        #expect(lines.contains("relay_upload_seconds_bucket{le=\"0.5\"} 3"))
        #expect(lines.contains("relay_upload_seconds_bucket{le=\"300\"} 3"))
        #expect(lines.contains("relay_upload_seconds_bucket{le=\"+Inf\"} 3"))
        #expect(lines.contains("relay_upload_seconds_count 3"))
        #expect(lines.contains { $0.hasPrefix("relay_upload_seconds_sum 1.2") })
        #expect(lines.contains("relay_shutter_to_gallery_seconds_bucket{le=\"1\"} 0"))
        #expect(lines.contains("relay_shutter_to_gallery_seconds_bucket{le=\"2\"} 3"))
    }

    @Test func everySampleBelongsToTheFamilyAboveIt() {
        var family = ""
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                family = String(line.split(separator: " ")[2])
            } else if !line.hasPrefix("#") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                #expect(name == family || name.hasPrefix(family + "_"), "\(line)")
            }
        }
    }

    @Test func numbers() {
        #expect(MetricsWriter.number(3) == "3")
        #expect(MetricsWriter.number(0.25) == "0.25")
        #expect(MetricsWriter.number(.infinity) == "+Inf")
        #expect(MetricsWriter.number(.nan) == "NaN")
    }

    @Test func timedCaptureAppearsOnlyDuringOne() {
        #expect(!text.contains("relay_capture_shots"))
        var state = SampleRun.state()
        state.apply(
            TimedEvent(
                at: SampleRun.now,
                .capture(
                    .progress(
                        CaptureProgress(
                            shot: 5, planned: 10, captured: 4, failed: 0, missed: 1, uploaded: 3, nextShotAt: nil, waitingForPhotos: 0,
                            uploadsPending: 1, paused: false)))))
        let capture = MetricsText.format(state, now: SampleRun.now)
        #expect(capture.contains("relay_capture_shots{outcome=\"captured\"} 4\n"))
        #expect(capture.contains("relay_capture_shots{outcome=\"missed\"} 1\n"))
        #expect(capture.contains("relay_capture_shots_planned 10\n"))
    }
}
