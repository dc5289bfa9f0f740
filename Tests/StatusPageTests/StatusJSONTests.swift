import Foundation
import RunEvents
import Testing

@testable import StatusPage

@Suite struct StatusJSONTests {
    func decoded(_ state: RunState, thumbnails: Set<String> = []) throws -> [String: Any] {
        let bytes = StatusJSON.encode(state, now: SampleRun.now, thumbnails: thumbnails)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func thePagesData() throws {
        let json = try decoded(SampleRun.state(), thumbnails: ["p3"])
        let totals = try #require(json["totals"] as? [String: Any])
        #expect(totals["taken"] as? Int == 3)
        #expect(totals["delivered"] as? Int == 3)
        #expect(totals["failed"] as? Int == 0)
        let camera = try #require((json["cameras"] as? [[String: Any]])?.first)
        #expect(camera["model"] as? String == "Canon EOS R50")
        #expect(camera["connected"] as? Bool == true)
        #expect(camera["batteryPercent"] as? Int == 80)
        #expect(camera["cardFreeShots"] as? Int == 812)
        let lastShot = try #require(camera["lastShot"] as? [String: Any])
        #expect(lastShot["name"] as? String == "IMG_1003.JPG")
        #expect(lastShot["ageSeconds"] as? Double == 4)
        let destinations = try #require(json["destinations"] as? [[String: Any]])
        #expect(destinations.map { $0["label"] as? String } == ["gallery", "backup \"b\"", "archive"])
        #expect(destinations.map { $0["inRun"] as? Bool } == [true, true, false])
        #expect(destinations[2]["queued"] as? Int == 4, "photos an earlier run took for it wait in the spool")
        #expect(destinations[1]["reachable"] as? Bool == false)
        #expect(destinations[1]["problem"] as? String == "connection refused")
        #expect(destinations[1]["queued"] as? Int == 2)
        #expect(destinations[1]["oldestWaitSeconds"] as? Double == 5)
        let recent = try #require(json["recent"] as? [[String: Any]])
        #expect(recent.map { $0["id"] as? String } == ["p3", "p2", "p1"])
        #expect(recent[0]["thumbnail"] as? String == "/thumb/p3.jpg")
        #expect(recent[1]["thumbnail"] == nil)
        #expect(json["capture"] == nil)
        #expect(json["uploadBytesPerSecond"] as? Double == 300_000)
    }

    @Test func aTimedCapture() throws {
        var state = SampleRun.state()
        state.apply(
            TimedEvent(
                at: SampleRun.now,
                .capture(
                    .progress(
                        CaptureProgress(
                            shot: 5, planned: 10, captured: 4, failed: 0, missed: 1, uploaded: 3, nextShotAt: SampleRun.now + 30,
                            waitingForPhotos: 0, uploadsPending: 1, paused: false)))))
        let capture = try #require(try decoded(state)["capture"] as? [String: Any])
        #expect(capture["planned"] as? Int == 10)
        #expect(capture["nextShotInSeconds"] as? Double == 30)
        #expect(capture["text"] as? String == "shot 5 of 10 · next in 30.0s · 1 upload(s) pending")
        #expect(capture["missed"] as? Int == 1)
    }

    @Test func beforeAnything() throws {
        let json = try decoded(RunState())
        #expect((json["cameras"] as? [Any])?.isEmpty == true)
        #expect(json["startedAt"] == nil)
    }
}
