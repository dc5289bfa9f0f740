import Foundation

/// The JSON-lines form of events (`relay run --json`): one object per event with `at` (RFC 3339,
/// UTC) and `type` (`camera.connected`, `photo.spooled`, `upload.settled`...) and the event's
/// own fields. The README's "Events as JSON" lists every type; keep the two in step.
extension TimedEvent {
    /// The event as one line of JSON (no newline).
    public var jsonLine: String {
        var fields = event.jsonFields
        fields["at"] = .string(JSONValue.timestamp(at))
        fields["type"] = .string(event.jsonType)
        return Self.encode(fields)
    }

    static func encode(_ fields: [String: JSONValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(fields) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension RunEvent {
    /// The `type` field.
    public var jsonType: String {
        switch self {
        case .run(let event):
            switch event {
            case .started: "run.started"
            case .notice: "run.notice"
            case .stopping: "run.stopping"
            case .stopped: "run.stopped"
            case .dropped: "dropped"
            case .spool: "spool.usage"
            }
        case .source(_, let event):
            switch event {
            case .connecting: "camera.connecting"
            case .connected: "camera.connected"
            case .lost: "camera.lost"
            case .battery: "camera.battery"
            case .card: "camera.card"
            case .batteryLow: "camera.battery_low"
            case .cardLow: "camera.card_low"
            case .announced: "photo.announced"
            case .spooled: "photo.spooled"
            case .skipped: "photo.skipped"
            case .alreadyTaken: "photo.already_taken"
            case .spoolFull: "source.spool_full"
            case .notice: "source.notice"
            case .unusable: "source.unusable"
            }
        case .upload(let event):
            switch event {
            case .started: "upload.started"
            case .progressed: "upload.progressed"
            case .settled: "upload.settled"
            case .renditionMade: "rendition.made"
            case .sentAsOriginal: "rendition.original"
            case .notice: "upload.notice"
            }
        case .destination(_, let event):
            switch event {
            case .lost: "destination.lost"
            case .stillLost: "destination.still_lost"
            case .found: "destination.found"
            case .queue: "destination.queue"
            case .session: "destination.session"
            }
        case .capture(let event):
            switch event {
            case .fired: "capture.fired"
            case .captured: "capture.captured"
            case .failed: "capture.failed"
            case .missed: "capture.missed"
            case .paused: "capture.paused"
            case .resumed: "capture.resumed"
            case .progress: "capture.progress"
            case .notice: "capture.notice"
            case .substituted: "capture.substituted"
            case .frame: "capture.frame"
            }
        case .review(let event): event.jsonType
        }
    }

    var jsonFields: [String: JSONValue] {
        switch self {
        case .run(let event): event.jsonFields
        case .source(let source, let event): event.jsonFields.merging(["source": .string(source)]) { $1 }
        case .upload(let event): event.jsonFields
        case .destination(let destination, let event): event.jsonFields.merging(["destination": .string(destination)]) { $1 }
        case .capture(let event): event.jsonFields
        case .review(let event): event.jsonFields
        }
    }
}

extension RunPhaseEvent {
    var jsonFields: [String: JSONValue] {
        switch self {
        case .started(let run):
            [
                "sources": .array(run.sources.map(JSONValue.string)),
                "destinations": .array(
                    run.destinations.map {
                        .object(["label": .string($0.label), "target": .string($0.target), "lowPriority": .bool($0.lowPriority)])
                    }),
                "workers": .int(Int64(run.workers)), "resumed": .int(Int64(run.resumed)), "rendition": JSONValue(run.rendition),
                "waitingElsewhere": .array(
                    run.waitingElsewhere.map {
                        .object(["label": .string($0.label), "photos": .int(Int64($0.photos))])
                    }),
            ]
        case .notice(let message, let severity):
            ["message": .string(message), "severity": .string(severity.rawValue)]
        case .stopping(let grace):
            ["graceSeconds": .double(grace)]
        case .stopped(let totals):
            [
                "delivered": .int(Int64(totals.delivered)), "failed": .int(Int64(totals.failed)),
                "destinations": .array(
                    totals.destinations.map {
                        .object(["label": .string($0.label), "delivered": .int(Int64($0.delivered)), "failed": .int(Int64($0.failed))])
                    }),
                "left": .int(Int64(totals.left)),
                "failedInSpool": .int(Int64(totals.failedInSpool)),
                "held": .object(totals.held.mapValues { .int(Int64($0)) }),
            ]
        case .dropped(let count):
            ["count": .int(Int64(count))]
        case .spool(let usage):
            [
                "photos": .int(Int64(usage.photos)), "bytes": .int(usage.bytes), "heldPhotos": .int(Int64(usage.heldPhotos)),
                "heldBytes": .int(usage.heldBytes), "maxPhotos": .int(Int64(usage.maxPhotos)), "maxBytes": .int(usage.maxBytes),
            ]
        }
    }
}

extension SourceEvent {
    var jsonFields: [String: JSONValue] {
        switch self {
        case .connecting(let detail): ["detail": .string(detail)]
        case .connected(let camera):
            [
                "model": .string(camera.model), "name": .string(camera.name), "serial": JSONValue(camera.serial),
                "address": .string(camera.address), "via": .string(camera.via),
            ]
        case .lost(let reason, let summary, let retryIn, let attempt):
            ["reason": .string(reason), "summary": .string(summary), "retryIn": .double(retryIn), "attempt": .int(Int64(attempt))]
        case .battery(let percent), .batteryLow(let percent): ["percent": .int(Int64(percent))]
        case .card(let space): ["freeBytes": JSONValue(space.freeBytes), "freeShots": JSONValue(space.freeShots)]
        case .cardLow(let shots): ["freeShots": .int(Int64(shots))]
        case .announced(let name, let bytes): ["fileName": .string(name), "bytes": JSONValue(bytes)]
        case .spooled(let spooled):
            spooled.photo.jsonFields.merging([
                "cameraFileName": .string(spooled.cameraFileName), "capturedAt": JSONValue(spooled.capturedAt),
                "path": .string(spooled.path),
            ]) { $1 }
        case .skipped(let name, let reason): ["fileName": .string(name), "reason": .string(reason)]
        case .alreadyTaken(let photo):
            ["fileName": .string(photo.fileName), "matched": .string(photo.matched), "atStart": .bool(photo.atStart)]
        case .spoolFull(let waiting): ["waiting": JSONValue(waiting)]
        case .notice(let message, let severity): ["message": .string(message), "severity": .string(severity.rawValue)]
        case .unusable(let message): ["message": .string(message)]
        }
    }
}

extension PhotoRef {
    var jsonFields: [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "photo": .string(id), "name": .string(name), "bytes": .int(bytes), "shot": JSONValue(shot),
            "renditionBytes": JSONValue(renditionBytes),
        ]
        if let photographer { fields["photographer"] = .string(photographer) }
        return fields
    }
}

extension UploadEvent {
    var jsonFields: [String: JSONValue] {
        switch self {
        case .started(let photo, let destination, let attempt, let duringDownload):
            photo.jsonFields.merging([
                "destination": .string(destination), "attempt": .int(Int64(attempt)),
                "duringDownload": .bool(duringDownload),
            ]) { $1 }
        case .progressed(let photo, let destination, let sent, let total):
            photo.jsonFields.merging(["destination": .string(destination), "sent": .int(sent), "total": .int(total)]) { $1 }
        case .settled(let photo, let destination, let outcome):
            photo.jsonFields.merging(outcome.jsonFields) { $1 }.merging(["destination": .string(destination)]) { $1 }
        case .renditionMade(let photo, let result):
            photo.jsonFields.merging([
                "renditionBytes": .int(result.bytes), "width": .int(Int64(result.width)), "height": .int(Int64(result.height)),
                "milliseconds": .int(Int64(result.milliseconds)), "notes": .array(result.notes.map(JSONValue.string)),
                "duringDownload": .bool(result.duringDownload),
            ]) { $1 }
        case .sentAsOriginal(let photo, let reason):
            photo.jsonFields.merging(["reason": .string(reason)]) { $1 }
        case .notice(let photo, let message, let severity):
            photo.jsonFields.merging(["message": .string(message), "severity": .string(severity.rawValue)]) { $1 }
        }
    }
}

extension UploadOutcome {
    var jsonFields: [String: JSONValue] {
        switch self {
        case .delivered(let delivery):
            [
                "outcome": .string("delivered"), "answer": .string(delivery.answer), "bytesSent": .int(delivery.bytesSent),
                "seconds": .double(delivery.seconds), "shutterToGallery": .double(delivery.shutterToGallery),
                "duringDownload": .bool(delivery.duringDownload),
            ]
        case .retrying(let attempt, let reason, let retryIn):
            ["outcome": .string("retrying"), "attempt": .int(Int64(attempt)), "reason": .string(reason), "retryIn": .double(retryIn)]
        case .interrupted:
            ["outcome": .string("interrupted")]
        case .failed(let reason, let keptIn):
            ["outcome": .string("failed"), "reason": .string(reason), "keptIn": JSONValue(keptIn)]
        }
    }
}

extension DestinationEvent {
    var jsonFields: [String: JSONValue] {
        switch self {
        case .lost(let reason, let retryIn): ["reason": .string(reason), "retryIn": .double(retryIn)]
        case .stillLost(let retryIn): ["retryIn": .double(retryIn)]
        case .found: [:]
        case .queue(let queue):
            [
                "queued": .int(Int64(queue.queued)), "inFlight": .int(Int64(queue.inFlight)), "failed": .int(Int64(queue.failed)),
                "held": .int(Int64(queue.held)), "oldestQueuedAt": JSONValue(queue.oldestQueuedAt),
            ]
        case .session(let name, let outcome):
            switch outcome {
            case .complete(let photos): ["session": .string(name), "outcome": .string("complete"), "photos": .int(Int64(photos))]
            case .incomplete: ["session": .string(name), "outcome": .string("incomplete")]
            case .manifestFailed(let reason): ["session": .string(name), "outcome": .string("manifest_failed"), "reason": .string(reason)]
            }
        }
    }
}

extension BracketFrameReport.State {
    var jsonFields: [String: JSONValue] {
        switch self {
        case .captured(let name): ["outcome": .string("captured"), "fileName": .string(name)]
        case .failed(let reason): ["outcome": .string("failed"), "reason": .string(reason)]
        }
    }
}

extension CaptureEvent {
    var jsonFields: [String: JSONValue] {
        switch self {
        case .fired(let shot, let of, let busy): ["shot": .int(Int64(shot)), "of": JSONValue(of), "busyRetries": .int(Int64(busy))]
        case .captured(let shot, let of, let name): ["shot": .int(Int64(shot)), "of": JSONValue(of), "fileName": .string(name)]
        case .failed(let shot, let of, let reason), .missed(let shot, let of, let reason):
            ["shot": .int(Int64(shot)), "of": JSONValue(of), "reason": .string(reason)]
        case .paused: [:]
        case .resumed(let camera, let seconds): ["camera": .string(camera), "afterSeconds": .double(seconds)]
        case .progress(let p):
            [
                "shot": .int(Int64(p.shot)), "planned": JSONValue(p.planned), "captured": .int(Int64(p.captured)),
                "failed": .int(Int64(p.failed)), "missed": .int(Int64(p.missed)), "uploaded": .int(Int64(p.uploaded)),
                "nextShotAt": JSONValue(p.nextShotAt), "waitingForPhotos": .int(Int64(p.waitingForPhotos)),
                "uploadsPending": .int(Int64(p.uploadsPending)), "paused": .bool(p.paused), "frame": JSONValue(p.frame),
            ]
        case .notice(let message, let severity): ["message": .string(message), "severity": .string(severity.rawValue)]
        case .substituted(let planned, let used): ["planned": .string(planned), "used": .string(used)]
        case .frame(let report):
            [
                "set": .int(Int64(report.set)), "frame": .int(Int64(report.frame)), "of": .int(Int64(report.of)),
                "speed": .string(report.speed),
            ].merging(report.state.jsonFields) { $1 }
        }
    }
}
