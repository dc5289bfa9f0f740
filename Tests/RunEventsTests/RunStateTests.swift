import Foundation
import RunEvents
import XCTest

final class RunStateTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let photo = PhotoRef(id: "a1", name: "IMG_0001.JPG", bytes: 8_000_000)
    let other = PhotoRef(id: "b2", name: "IMG_0002.JPG", bytes: 8_000_000)
    let web = DestinationDescription(label: "web", target: "POST https://g/upload")
    let archive = DestinationDescription(label: "archive", target: "sftp://nas/photos")

    func fold(_ events: [(Double, RunEvent)]) -> RunState {
        var state = RunState()
        for (offset, event) in events { state.apply(TimedEvent(at: t0.addingTimeInterval(offset), event)) }
        return state
    }

    var started: RunEvent {
        .run(
            .started(
                RunDescription(
                    sources: ["camera 10.0.0.5:15740"],
                    destinations: [
                        DestinationDescription(label: "gallery", target: "POST http://g/upload"),
                        DestinationDescription(label: "backup", target: "s3://b/x", lowPriority: true),
                    ],
                    workers: 2, resumed: 0)))
    }

    func delivered(_ seconds: Double, bytes: Int64 = 8_000_000) -> UploadOutcome {
        .delivered(Delivery(answer: "HTTP 201", bytesSent: bytes, seconds: seconds, shutterToGallery: seconds + 1, duringDownload: false))
    }

    func testADeliveryCountsForTheRunAtItsNormalDestinationAndEachDestinationKeepsItsOwn() {
        let state = fold([
            (0, started),
            (1, .upload(.started(photo, destination: "gallery", attempt: 1, duringDownload: true))),
            (1, .upload(.started(photo, destination: "backup", attempt: 1, duringDownload: false))),
            (2, .upload(.settled(photo, destination: "gallery", outcome: delivered(1.2)))),
            (3, .upload(.settled(photo, destination: "backup", outcome: .retrying(attempt: 1, reason: "503", retryIn: 2)))),
        ])
        XCTAssertEqual(state.delivered, 1)
        XCTAssertEqual(state.retries, 1)
        XCTAssertEqual(state.uploading, 0)
        XCTAssertEqual(state.destinations.map(\.label), ["gallery", "backup"])
        XCTAssertEqual(state.destinations[0].delivered, 1)
        XCTAssertEqual(state.destinations[1].delivered, 0)
        XCTAssertEqual(state.destinations[1].retries, 1)
        XCTAssertTrue(state.destinations[1].lowPriority)
        XCTAssertTrue(state.destinations.allSatisfy(\.inRun))
        XCTAssertEqual(state.recent.map(\.photo.name), ["IMG_0001.JPG"])
        XCTAssertEqual(state.lastShutterToGallery, 2.2)
        XCTAssertEqual(state.uploadSeconds.count, 1)
        XCTAssertEqual(state.uploadSeconds.cumulativeCounts, [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1])
    }

    func testDestinationsOutsideTheRunThatPhotosWaitForAreShownWithTheirCount() {
        let state = fold([
            (
                0,
                .run(
                    .started(
                        RunDescription(
                            sources: ["folder /in"],
                            destinations: [DestinationDescription(label: "gallery", target: "POST http://g/upload")],
                            workers: 1, resumed: 3,
                            waitingElsewhere: [WaitingElsewhere(label: "backup", photos: 5), WaitingElsewhere(label: "gallery", photos: 1)])
                    ))
            )
        ])
        XCTAssertEqual(state.destinations.map(\.label), ["gallery", "backup"], "a label the run delivers to is not listed twice")
        XCTAssertEqual(state.destinations.map(\.inRun), [true, false])
        XCTAssertEqual(state.destinations[1].queue.queued, 5)
        XCTAssertEqual(state.queued, 0, "the progress line counts the run's own queue")
    }

    func testUploadRateCoversTheLastTenSeconds() {
        let state = fold([
            (0, started),
            (1, .upload(.settled(photo, destination: "gallery", outcome: delivered(1, bytes: 10_000_000)))),
            (8, .upload(.settled(photo, destination: "gallery", outcome: delivered(1, bytes: 20_000_000)))),
        ])
        XCTAssertEqual(state.bytesPerSecond(at: t0.addingTimeInterval(9)), 3_000_000)
        XCTAssertEqual(state.bytesPerSecond(at: t0.addingTimeInterval(15)), 2_000_000)
        XCTAssertEqual(state.bytesPerSecond(at: t0.addingTimeInterval(30)), 0)
    }

    func testCameraConnectionBatteryCardAndLastShot() {
        let source = "camera 10.0.0.5:15740"
        let camera = CameraDescription(
            model: "Canon EOS R6", name: "Canon EOS R6 (serial 42)", serial: "42",
            address: "10.0.0.5:15740", via: "Canon EOS events")
        var state = fold([
            (0, started),
            (1, .source(source, .connected(camera))),
            (2, .source(source, .battery(percent: 64))),
            (2, .source(source, .card(CardSpace(freeBytes: 30_000_000_000, freeShots: 1200)))),
            (3, .source(source, .spooled(SpooledPhoto(photo: photo, cameraFileName: "IMG_0001.JPG", capturedAt: t0, path: "/s/a1.jpg")))),
        ])
        XCTAssertEqual(state.sources.count, 1)
        XCTAssertEqual(state.sources[0].camera?.model, "Canon EOS R6")
        XCTAssertTrue(state.sources[0].connected)
        XCTAssertEqual(state.sources[0].batteryPercent, 64)
        XCTAssertEqual(state.sources[0].card?.freeShots, 1200)
        XCTAssertEqual(state.sources[0].lastShot?.name, "IMG_0001.JPG")
        XCTAssertEqual(state.spooled, 1)
        state.apply(
            TimedEvent(
                at: t0.addingTimeInterval(4),
                .source(source, .lost(reason: "connection reset", summary: "reset", retryIn: 2, attempt: 1))))
        XCTAssertFalse(state.sources[0].connected)
        XCTAssertEqual(state.sources[0].problem, "connection reset")
    }

    func testProgressLine() {
        let source = "camera 10.0.0.5:15740"
        let state = fold([
            (0, started),
            (0, .source(source, .connected(CameraDescription(model: "Canon EOS R50", name: "R50", serial: nil, address: "x", via: "y")))),
            (0, .source(source, .battery(percent: 18))),
            (0, .destination("gallery", .queue(QueueState(queued: 3, inFlight: 2, failed: 0)))),
            (0, .upload(.started(photo, destination: "gallery", attempt: 1, duringDownload: false))),
            (0, .upload(.started(photo, destination: "gallery", attempt: 1, duringDownload: false))),
            (1, .upload(.settled(photo, destination: "gallery", outcome: delivered(0.84, bytes: 25_000_000)))),
            (2, .destination("backup", .lost(reason: "timeout", retryIn: 4))),
        ])
        XCTAssertEqual(
            ProgressLine.format(state, at: t0.addingTimeInterval(2)),
            "gallery queued 3, uploading 1, done 1 · backup queued 0, done 0 · 2.5 MB/s · last shutter→gallery 1.84s · "
                + "Canon EOS R50 connected · battery 18 % · backup unreachable")
    }

    func testTheProgressLineOfAOneDestinationRunNamesNone() {
        let state = fold([
            (0, .run(.started(RunDescription(sources: ["folder /in"], destinations: [web], workers: 1, resumed: 0)))),
            (0, .destination("web", .queue(QueueState(queued: 2, inFlight: 0, failed: 1)))),
            (1, .upload(.settled(photo, destination: "web", outcome: delivered(0.5)))),
            (1, .upload(.settled(other, destination: "web", outcome: .failed(reason: "HTTP 403", keptIn: "/s/failed")))),
        ])
        XCTAssertEqual(
            ProgressLine.format(state, at: t0.addingTimeInterval(1)),
            "queued 2, done 1, failed 1 · 0.8 MB/s · last shutter→gallery 1.50s")
    }

    /// No destination is special: a photo counts for the run once every destination of normal
    /// priority has it, in whatever order they answer, and fails it once when one refuses it.
    func testTheRunCountsAPhotoWhenEveryNormalDestinationHasIt() {
        let run = RunDescription(
            sources: ["folder /in"],
            destinations: [web, archive, DestinationDescription(label: "backup", target: "s3://b/x", lowPriority: true)],
            workers: 2, resumed: 0)
        XCTAssertEqual(run.countedDestinations, ["web", "archive"])
        var state = fold([
            (0, .run(.started(run))),
            (1, .upload(.settled(photo, destination: "archive", outcome: delivered(0.5)))),
            (1, .upload(.settled(photo, destination: "backup", outcome: delivered(0.2)))),
            (1, .upload(.settled(other, destination: "backup", outcome: .failed(reason: "HTTP 403", keptIn: nil)))),
        ])
        XCTAssertEqual(state.delivered, 0, "the web gallery does not have it yet")
        XCTAssertEqual(state.failed, 0, "the backup's refusal holds up nothing")
        XCTAssertNil(state.lastShutterToGallery)
        state.apply(TimedEvent(at: t0.addingTimeInterval(2), .upload(.settled(photo, destination: "web", outcome: delivered(0.9)))))
        state.apply(
            TimedEvent(
                at: t0.addingTimeInterval(2),
                .upload(.settled(other, destination: "web", outcome: .failed(reason: "HTTP 400", keptIn: nil)))))
        state.apply(
            TimedEvent(
                at: t0.addingTimeInterval(3),
                .upload(.settled(other, destination: "archive", outcome: .failed(reason: "HTTP 400", keptIn: nil)))))
        XCTAssertEqual(state.delivered, 1)
        XCTAssertEqual(state.failed, 1, "a photo two destinations refused fails the run once")
        XCTAssertEqual(state.lastShutterToGallery, 1.9, "until the last of them had it")
        XCTAssertEqual(state.destinations.map(\.delivered), [1, 1, 1])
        XCTAssertEqual(state.destinations.map(\.failed), [1, 1, 1])

        let totals = RunTotals(state, left: 0, failedInSpool: 2, held: [:])
        XCTAssertEqual(
            totals.destinations,
            [
                DestinationTotals(label: "web", delivered: 1, failed: 1), DestinationTotals(label: "archive", delivered: 1, failed: 1),
                DestinationTotals(label: "backup", delivered: 1, failed: 1),
            ])
        XCTAssertEqual(
            ProgressLine.format(state, at: t0.addingTimeInterval(3)),
            "web queued 0, done 1, failed 1 · archive queued 0, done 1, failed 1 · backup queued 0, done 1, failed 1 · "
                + "2.4 MB/s · last shutter→gallery 1.90s")
    }

    func testCaptureProgressLeadsTheProgressLine() {
        let progress = CaptureProgress(
            shot: 3, planned: 10, captured: 3, failed: 0, missed: 0, uploaded: 2,
            nextShotAt: t0.addingTimeInterval(4.2), waitingForPhotos: 0, uploadsPending: 1, paused: false)
        let state = fold([(0, started), (0, .capture(.progress(progress)))])
        XCTAssertTrue(ProgressLine.format(state, at: t0).hasPrefix("shot 3 of 10 · next in 4.2s · 1 upload(s) pending · gallery queued 0"))
    }
}
