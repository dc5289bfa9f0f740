import Foundation
import RunEvents
import XCTest

/// One of every event, as `relay run --json` writes them.
let everyEvent: [RunEvent] = {
    let photo = PhotoRef(id: "a1", name: "IMG_0001.JPG", bytes: 8_000_000, shot: 3, renditionBytes: 400_000)
    let at = Date(timeIntervalSince1970: 1_800_000_000)
    let source = "camera 10.0.0.5:15740"
    return [
        .run(
            .started(
                RunDescription(
                    sources: [source], destinations: [DestinationDescription(label: "gallery", target: "POST http://g/")],
                    workers: 2, resumed: 1, rendition: "2048 px"))),
        .run(.notice("spool: x", .warning)),
        .run(.stopping(graceSeconds: 15)),
        .run(.stopped(RunTotals(delivered: 3, failed: 1, left: 0, failedInSpool: 1))),
        .source(source, .connecting("camera: connecting to 10.0.0.5")),
        .source(
            source,
            .connected(
                CameraDescription(
                    model: "Nikon Z 6", name: "Nikon Z 6 (serial 9)", serial: "9",
                    address: "10.0.0.5:15740", via: "Nikon events"))),
        .source(source, .lost(reason: "reset\nby peer", summary: "reset", retryIn: 2, attempt: 1)),
        .source(source, .battery(percent: 50)),
        .source(source, .card(CardSpace(freeBytes: 1_000, freeShots: nil))),
        .source(source, .batteryLow(percent: 20)),
        .source(source, .cardLow(shots: 99)),
        .source(source, .announced(fileName: "DSC_0001.JPG", bytes: nil)),
        .source(source, .spooled(SpooledPhoto(photo: photo, cameraFileName: "DSC_0001.JPG", capturedAt: at, path: "/s/a1.jpg"))),
        .source(source, .skipped(fileName: "DSC_0001.NEF", reason: "RAW")),
        .source(source, .spoolFull(waiting: 4)),
        .source(source, .info("resuming \"x\" at 1 MB")),
        .source(source, .unusable("not supported")),
        .upload(.started(photo, destination: "gallery", attempt: 1, duringDownload: true)),
        .upload(.progressed(photo, destination: "gallery", sent: 10, total: 20)),
        .upload(
            .settled(
                photo, destination: "gallery",
                outcome: .delivered(
                    Delivery(
                        answer: "HTTP 201", bytesSent: 400_000, seconds: 0.5, shutterToGallery: 1.5, duringDownload: false)))),
        .upload(.settled(photo, destination: "gallery", outcome: .retrying(attempt: 2, reason: "HTTP 503", retryIn: 4))),
        .upload(.settled(photo, destination: "gallery", outcome: .interrupted)),
        .upload(.settled(photo, destination: "gallery", outcome: .failed(reason: "HTTP 400", keptIn: "/s/failed"))),
        .upload(.renditionMade(photo, RenditionResult(bytes: 400_000, width: 2048, height: 1365, milliseconds: 210, notes: ["n"]))),
        .upload(.sentAsOriginal(photo, reason: "not a JPEG")),
        .upload(.notice(photo, "m", .warning)),
        .destination("gallery", .lost(reason: "refused", retryIn: 1)),
        .destination("gallery", .stillLost(retryIn: 2)),
        .destination("gallery", .found),
        .destination("gallery", .queue(QueueState(queued: 1, inFlight: 2, failed: 3, oldestQueuedAt: at))),
        .destination("gallery", .session(name: "s", outcome: .complete(photos: 4))),
        .capture(.fired(shot: 1, of: 3, busyRetries: 0)),
        .capture(.captured(shot: 1, of: 3, fileName: "IMG_0001.JPG")),
        .capture(.failed(shot: 2, of: 3, reason: "no photo")),
        .capture(.missed(shot: 3, of: nil, reason: "away")),
        .capture(.paused),
        .capture(.resumed(camera: "R6", afterSeconds: 12)),
        .capture(
            .progress(
                CaptureProgress(
                    shot: 1, planned: nil, captured: 1, failed: 0, missed: 0, uploaded: 0,
                    nextShotAt: nil, waitingForPhotos: 0, uploadsPending: 1, paused: false))),
        .capture(.notice("rounded", .info)),
        .source(
            source,
            .alreadyTaken(AlreadyTaken(fileName: "DSC_0002.JPG", matched: "body serial 3, shot 2026:11:27 10:00:00.12", atStart: false))),
    ]
}()

final class RunEventJSONTests: XCTestCase {
    func testEveryEventIsOneLineOfJSONWithItsTypeAndTime() throws {
        var types: Set<String> = []
        for event in everyEvent {
            let line = TimedEvent(at: Date(timeIntervalSince1970: 1_800_000_000.25), event).jsonLine
            XCTAssertFalse(line.contains("\n"), line)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
            XCTAssertEqual(object["type"] as? String, event.jsonType)
            XCTAssertEqual(object["at"] as? String, "2027-01-15T08:00:00.250Z")
            types.insert(event.jsonType)
        }
        XCTAssertEqual(types.count, 37, "upload.settled appears four times, every other type once")
    }

    func testFieldsOfADelivery() throws {
        let line = TimedEvent(everyEvent[19]).jsonLine
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["type"] as? String, "upload.settled")
        XCTAssertEqual(object["outcome"] as? String, "delivered")
        XCTAssertEqual(object["destination"] as? String, "gallery")
        XCTAssertEqual(object["name"] as? String, "IMG_0001.JPG")
        XCTAssertEqual(object["shot"] as? Int, 3)
        XCTAssertEqual(object["bytesSent"] as? Int, 400_000)
        XCTAssertEqual(object["shutterToGallery"] as? Double, 1.5)
    }

    /// A photo declined as taken before says what matched, in JSON and on the console; those a
    /// source's first look declines are summed up in one line instead.
    func testAPhotoTakenBeforeIsSaidWithWhatMatched() throws {
        let line = TimedEvent(everyEvent.last!).jsonLine
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["type"] as? String, "photo.already_taken")
        XCTAssertEqual(object["fileName"] as? String, "DSC_0002.JPG")
        XCTAssertEqual(object["matched"] as? String, "body serial 3, shot 2026:11:27 10:00:00.12")
        XCTAssertEqual(object["atStart"] as? Bool, false)
        let sentence = EventSentence()
        XCTAssertEqual(
            sentence.line(for: everyEvent.last!),
            "DSC_0002.JPG was taken before (matched body serial 3, shot 2026:11:27 10:00:00.12): not sent again")
        let atStart = (1...5).map { AlreadyTaken(fileName: "IMG_000\($0).JPG", matched: "IMG_000\($0).JPG, 9 bytes", atStart: true) }
        XCTAssertNil(sentence.line(for: .source("camera x", .alreadyTaken(atStart[0]))))
        XCTAssertEqual(
            AlreadyTaken.summary(atStart, in: "on the card of R6"),
            "5 photo(s) on the card of R6 were taken before (or left there when relay first met the source) and are not sent "
                + "again (IMG_0001.JPG, IMG_0002.JPG, IMG_0003.JPG and 2 more; first match: IMG_0001.JPG, 9 bytes); --json lists "
                + "each with what it matched")
        XCTAssertNil(AlreadyTaken.summary([], in: "on the card of R6"))
        var state = RunState()
        state.apply(TimedEvent(.run(.started(RunDescription(sources: ["camera x"], destinations: [], workers: 1, resumed: 0)))))
        for photo in atStart { state.apply(TimedEvent(.source("camera x", .alreadyTaken(photo)))) }
        XCTAssertEqual(state.alreadyTaken, 5)
        XCTAssertEqual(state.sources.first?.alreadyTaken, 5)
        XCTAssertTrue(ProgressLine.format(state, at: Date()).contains("taken before 5"))
    }

    func testASourceEventNamesItsSourceAndANullIsWrittenAsNull() throws {
        let line = TimedEvent(.source("folder /x", .card(CardSpace(freeBytes: nil, freeShots: 12)))).jsonLine
        XCTAssertTrue(line.contains(#""freeBytes":null"#), line)
        XCTAssertTrue(line.contains(#""source":"folder /x""#), line)
    }
}

final class EventSentenceTests: XCTestCase {
    func testTheConsoleWordingOfTheRunsMainEvents() {
        var sentence = EventSentence()
        sentence.learn(everyEvent[0])
        let photo = PhotoRef(id: "a1", name: "IMG_0001.JPG", bytes: 24_800_000, renditionBytes: 812_000)
        XCTAssertEqual(
            sentence.line(
                for: .upload(
                    .settled(
                        photo, destination: "gallery",
                        outcome: .delivered(
                            Delivery(
                                answer: "HTTP 201", bytesSent: 812_000, seconds: 0.42, shutterToGallery: 1.5, duringDownload: true))))),
            "uploaded IMG_0001.JPG (24.8 MB → 812 KB) HTTP 201 in 0.42s, 1.50s from shutter to gallery (sent while downloading)")
        XCTAssertEqual(
            sentence.line(
                for: .upload(
                    .settled(
                        photo, destination: "gallery",
                        outcome: .retrying(
                            attempt: 2, reason: "HTTP 503", retryIn: 4)))), "IMG_0001.JPG: attempt 2 failed (HTTP 503); retrying in 4.0s")
        XCTAssertEqual(
            sentence.line(for: .destination("gallery", .lost(reason: "connection refused", retryIn: 1))),
            "the gallery cannot be reached (connection refused); photos wait in the spool, next try in 1.0s")
        XCTAssertEqual(sentence.line(for: .destination("gallery", .found)), "the gallery is reachable again")
        XCTAssertEqual(
            sentence.line(for: .upload(.settled(photo, destination: "gallery", outcome: .failed(reason: "HTTP 400", keptIn: "/s/failed")))),
            "IMG_0001.JPG FAILED for good: HTTP 400. It is in /s/failed; fix the config, then relay retry")
        XCTAssertEqual(
            sentence.line(for: everyEvent[3]),
            "stopped: 3 uploaded, 1 failed this run; 0 left in the spool (sent on the next run), 1 in spool/failed (relay status)")
        XCTAssertEqual(
            sentence.line(
                for: .source(
                    "camera x",
                    .lost(
                        reason: "reset\nsecond line", summary: "reset", retryIn: 2,
                        attempt: 1))),
            "reset; trying again every few seconds\nsecond line")
        XCTAssertEqual(
            sentence.line(for: .capture(.captured(shot: 2, of: 5, fileName: "IMG_0002.JPG"))),
            "shot 2 of 5: captured IMG_0002.JPG")
        XCTAssertNil(sentence.line(for: .destination("gallery", .queue(QueueState(queued: 1, inFlight: 0, failed: 0)))))
        XCTAssertNil(sentence.line(for: .source("camera x", .battery(percent: 80))))
    }

    /// With several destinations every line about a delivery or a destination names it, the
    /// same way for each (none is "the gallery"), and the end sums each up.
    func testSeveralDestinationsAreEachNamedTheSameWay() {
        var sentence = EventSentence()
        let started = RunEvent.run(
            .started(
                RunDescription(
                    sources: ["folder /in"],
                    destinations: [
                        DestinationDescription(label: "web", target: "POST https://g/upload"),
                        DestinationDescription(label: "archive", target: "sftp://nas/photos", lowPriority: true),
                    ], workers: 2, resumed: 0)))
        sentence.learn(started)
        XCTAssertEqual(
            sentence.line(for: started),
            "relay: folder /in → POST https://g/upload (config web) + sftp://nas/photos (config archive, low priority), 2 workers")
        let photo = PhotoRef(id: "a1", name: "IMG_0001.JPG", bytes: 24_800_000)
        func settled(_ label: String, _ outcome: UploadOutcome) -> String? {
            sentence.line(for: .upload(.settled(photo, destination: label, outcome: outcome)))
        }
        for label in ["web", "archive"] {
            XCTAssertEqual(
                settled(
                    label,
                    .delivered(Delivery(answer: "HTTP 201", bytesSent: 1, seconds: 0.42, shutterToGallery: 1.5, duringDownload: false))),
                "uploaded IMG_0001.JPG → \(label) (24.8 MB) HTTP 201 in 0.42s, 1.50s from shutter to \(label)")
            XCTAssertEqual(
                settled(label, .retrying(attempt: 2, reason: "HTTP 503", retryIn: 4)),
                "IMG_0001.JPG → \(label): attempt 2 failed (HTTP 503); retrying in 4.0s")
            XCTAssertEqual(
                settled(label, .interrupted),
                "IMG_0001.JPG → \(label): upload interrupted by shutdown; it stays in the spool for the next run")
            XCTAssertEqual(
                settled(label, .failed(reason: "HTTP 403", keptIn: nil)),
                "IMG_0001.JPG → \(label) FAILED for good: HTTP 403. Fix the config, then relay retry --destination \(label)")
            XCTAssertEqual(
                settled(label, .failed(reason: "HTTP 403", keptIn: "/s/failed")),
                "IMG_0001.JPG → \(label) FAILED for good: HTTP 403. It is in /s/failed; fix the config, then relay retry --destination \(label)"
            )
            XCTAssertEqual(
                sentence.line(for: .destination(label, .lost(reason: "connection refused", retryIn: 1))),
                "destination '\(label)' cannot be reached (connection refused); photos wait in the spool, next try in 1.0s")
            XCTAssertEqual(
                sentence.line(for: .destination(label, .stillLost(retryIn: 2))),
                "destination '\(label)' is still unreachable; next try in 2.0s")
            XCTAssertEqual(sentence.line(for: .destination(label, .found)), "destination '\(label)' is reachable again")
        }
        let totals = RunTotals(
            delivered: 2, failed: 0,
            destinations: [
                DestinationTotals(label: "web", delivered: 2, failed: 0), DestinationTotals(label: "archive", delivered: 1, failed: 1),
            ],
            left: 1, failedInSpool: 0)
        XCTAssertEqual(
            sentence.line(for: .run(.stopped(totals))),
            "stopped: web 2 uploaded, 0 failed · archive 1 uploaded, 1 failed this run; 1 left in the spool (sent on the next run)")
        let json = try? JSONSerialization.jsonObject(with: Data(TimedEvent(.run(.stopped(totals))).jsonLine.utf8)) as? [String: Any]
        XCTAssertEqual((json?["destinations"] as? [[String: Any]])?.compactMap { $0["label"] as? String }, ["web", "archive"])
    }

    func testSeveralSourcesAreNamed() {
        var sentence = EventSentence()
        sentence.learn(
            .run(
                .started(
                    RunDescription(
                        sources: ["folder /a", "ftp 0.0.0.0:2121"], destinations: [], workers: 1,
                        resumed: 0))))
        XCTAssertEqual(
            sentence.line(for: .source("folder /a", .skipped(fileName: "x.mov", reason: "not a JPEG"))),
            "[folder /a] skipped x.mov: not a JPEG")
    }
}
