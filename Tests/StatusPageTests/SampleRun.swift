import Foundation
import RunEvents

/// A run told as events: one camera (battery, card, photos), a gallery and a backup, some
/// deliveries, a retry and a failure. Tests fold it into a `RunState` or publish it on a bus.
struct SampleRun {
    /// When the run starts; everything else happens within 9 seconds of it.
    var start = Date(timeIntervalSince1970: 1_790_000_000)
    static let camera = "ptpip://127.0.0.1:15740"
    static let model = "Canon EOS R50"

    static func photo(_ number: Int) -> PhotoRef {
        PhotoRef(id: "p\(number)", name: "IMG_\(1000 + number).JPG", bytes: 1_000_000)
    }

    func spooled(_ number: Int, path: String = "/nonexistent/spool/p.jpg", at offset: Double) -> TimedEvent {
        TimedEvent(
            at: start + offset,
            .source(
                Self.camera,
                .spooled(
                    SpooledPhoto(
                        photo: Self.photo(number), cameraFileName: "IMG_\(1000 + number).JPG", capturedAt: start + offset - 1, path: path)))
        )
    }

    func delivered(_ number: Int, to destination: String = "gallery", seconds: Double = 0.4, at offset: Double) -> [TimedEvent] {
        [
            TimedEvent(
                at: start + offset - seconds,
                .upload(.started(Self.photo(number), destination: destination, attempt: 1, duringDownload: false))),
            TimedEvent(
                at: start + offset,
                .upload(
                    .settled(
                        Self.photo(number), destination: destination,
                        outcome: .delivered(
                            Delivery(
                                answer: "HTTP 201", bytesSent: 1_000_000, seconds: seconds, shutterToGallery: seconds + 1.5,
                                duringDownload: false))))),
        ]
    }

    /// Three photos delivered to the gallery, one failed at the backup, one queued there.
    func events(photoPaths: [String]? = nil) -> [TimedEvent] {
        var events: [TimedEvent] = [
            TimedEvent(
                at: start,
                .run(
                    .started(
                        RunDescription(
                            sources: [Self.camera],
                            destinations: [
                                DestinationDescription(label: "gallery", target: "POST http://127.0.0.1:8000/upload"),
                                DestinationDescription(label: "backup \"b\"", target: "s3://bucket/x", lowPriority: true),
                            ],
                            workers: 2, resumed: 0, waitingElsewhere: [WaitingElsewhere(label: "archive", photos: 4)])))),
            TimedEvent(
                at: start + 1,
                .source(
                    Self.camera,
                    .connected(
                        CameraDescription(
                            model: Self.model, name: "\(Self.model) #123", serial: "123", address: "127.0.0.1:15740", via: "PTP/IP")))),
            TimedEvent(at: start + 1, .source(Self.camera, .battery(percent: 80))),
            TimedEvent(at: start + 1, .source(Self.camera, .card(CardSpace(freeBytes: 12_500_000_000, freeShots: 812)))),
        ]
        for number in 1...3 {
            events.append(spooled(number, path: photoPaths?[number - 1] ?? "/nonexistent/spool/p\(number).jpg", at: Double(number * 2)))
            events += delivered(number, at: Double(number * 2) + 0.5)
        }
        events += [
            TimedEvent(
                at: start + 7,
                .upload(
                    .settled(
                        Self.photo(1), destination: "backup \"b\"",
                        outcome: .retrying(attempt: 1, reason: "HTTP 503", retryIn: 2)))),
            TimedEvent(
                at: start + 8,
                .upload(
                    .settled(
                        Self.photo(1), destination: "backup \"b\"",
                        outcome: .failed(reason: "HTTP 403", keptIn: "spool/failed")))),
            TimedEvent(
                at: start + 8,
                .destination(
                    "backup \"b\"",
                    .queue(
                        QueueState(
                            queued: 2, inFlight: 0, failed: 1,
                            oldestQueuedAt: start + 4)))),
            TimedEvent(at: start + 8, .destination("backup \"b\"", .lost(reason: "connection refused", retryIn: 5))),
        ]
        return events
    }

    /// The state after every event, and the moment just after the last one.
    static func state() -> RunState {
        var state = RunState()
        for event in SampleRun().events() { state.apply(event) }
        return state
    }

    static var now: Date { SampleRun().start + 9 }

    static func events(photoPaths: [String]? = nil) -> [TimedEvent] { SampleRun().events(photoPaths: photoPaths) }
    static func delivered(_ number: Int, at offset: Double) -> [TimedEvent] { SampleRun().delivered(number, at: offset) }
}
