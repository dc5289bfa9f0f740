import Foundation
import GPhoto2
import Intake
import PTPWire
import RelayCore
import RunEvents
import Spool

/// Serves one opened libgphoto2 camera until relay stops or the camera fails: lists the card
/// once (what was shot while relay was away, or whose event a drop lost), then learns of new
/// files from `gp_camera_wait_for_event`, decides about each, downloads those it takes into the
/// spool (GPhoto2Session+Download.swift), and fires the timed capture's shots.
///
/// A failure of the camera ends the session by throwing (the source reconnects); what was
/// downloaded of a photo so far stays in `memory.partials` and the next session resumes it.
final class GPhoto2Session {
    typealias Context = SessionContext<GPhoto2Source.Options>

    /// A file to look at, and when relay learned of it (it stands for the shutter time).
    struct Candidate {
        var path: GPhoto2FilePath
        var detectedAt: Date
        /// The timed-capture shot that made it, once known.
        var shot: Int?
    }

    let camera: GPhoto2Camera
    let memory: CameraMemory
    let context: Context
    private var firstConnection: Bool
    /// Files decided about in this session.
    var known: Set<GPhoto2FilePath> = []
    var queue: [Candidate] = []
    /// Files on the card when the session started: shot before it, so not a timed shot's photo.
    private var onCardAtConnect: Set<GPhoto2FilePath> = []
    /// Downloads wait until then after the spool could not take a photo (a full disk).
    var downloadsPausedUntil: TimeInterval = 0
    private var reportedWaitingForRoom = false
    /// Whether `gp_camera_trigger_capture` failed as not supported: fire with `gp_camera_capture`.
    private var captureBlocks = false
    /// The battery and card readings.
    private var power = GPhoto2Power()
    /// This session's photos in the spool, by path, and the files the camera said changed.
    var taken: [GPhoto2FilePath: TakenFile] = [:]
    var changed: [GPhoto2FilePath] = []

    /// Longest wait for an event when there is nothing else to do.
    static let idleWaitMilliseconds: Int32 = 250

    init(camera: GPhoto2Camera, memory: CameraMemory, context: Context, firstConnection: Bool) {
        self.camera = camera
        self.memory = memory
        self.context = context
        self.firstConnection = firstConnection
    }

    var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    func run() throws {
        let listing = try camera.listFiles()
        onCardAtConnect = Set(listing)
        var toLookAt = listing
        if firstConnection && !context.options.includeExisting {
            let existing = try existingFiles(listing)
            try recordExisting(listing.filter { existing.contains($0) })
            toLookAt = listing.filter { !existing.contains($0) }
        }
        queue = toLookAt.map { Candidate(path: $0, detectedAt: Date()) }
        firstConnection = false
        context.report(
            .connected(
                CameraDescription(
                    model: camera.summary.model ?? camera.driverModel, name: camera.name,
                    serial: camera.summary.serial, address: camera.port, via: "through libgphoto2")))
        if let capture = context.options.capture {
            capture.cameraReady(
                name: camera.name,
                triggerProblem: camera.canCapture
                    ? nil
                    : "\(camera.name) cannot be fired through libgphoto2 (its driver has no capture for this camera): "
                        + "check that the camera is in a remote or PC shooting mode")
        }
        while !context.stop.isStopped {
            try fireDueShot()
            let worked = try step()
            for change in try power.update(camera, now: now) { context.report(change.event) }
            if let error = memory.recordPending() {
                context.report(.warning("photos are spooled but could not be remembered as taken: \(error)"))
            }
            let untilShot = context.options.capture?.secondsUntilNextShot().map {
                Int32(max(0, min(Double(Self.idleWaitMilliseconds), $0 * 1000)))
            }
            let wait = worked ? 0 : min(Self.idleWaitMilliseconds, untilShot ?? Self.idleWaitMilliseconds)
            try take(camera.waitForEvent(milliseconds: wait))
        }
    }

    /// The files of `listing` that were on the card at relay's first listing of it: kept in the
    /// registry until recorded, so that a relay killed before then takes, next time, what was
    /// shot meanwhile.
    private func existingFiles(_ listing: [GPhoto2FilePath]) throws -> Set<GPhoto2FilePath> {
        let registry = context.registry
        guard let remembered = registry.camera(serial: memory.serial)?.firstListing.map(Set.init) else {
            try registry.noteFirstListing(serial: memory.serial, listing.map(\.description))
            return Set(listing)
        }
        return Set(listing.filter { remembered.contains($0.description) })
    }

    /// The first time relay meets the camera, what is on the card stays there: recorded as
    /// seen in one write (`--include-existing` takes it too).
    private func recordExisting(_ listing: [GPhoto2FilePath]) throws {
        var lines: [(key: String, file: String)] = []
        for path in listing {
            guard let info = try? camera.info(path) else { continue }
            lines.append((Self.identityKey(path, info), path.name))
        }
        try memory.seen.record(lines)
        try context.registry.noteExistingPhotosRecorded(serial: memory.serial)
        if !lines.isEmpty {
            context.report(
                .info(
                    "\(lines.count) file(s) were already on the card of \(camera.name) and stay there; "
                        + "relay takes what is shot from now on (--include-existing takes those too)"))
        }
    }

    private func take(_ event: GPhoto2Event) {
        if case .fileChanged(let path) = event, taken[path] != nil, !changed.contains(path) { changed.append(path) }
        guard case .fileAdded(let path) = event, !known.contains(path), !queue.contains(where: { $0.path == path }) else { return }
        power.photoTaken()
        queue.append(Candidate(path: path, detectedAt: Date()))
        context.report(.announced(fileName: path.name, bytes: nil))
    }

    /// Looks at or downloads the next file; returns whether it did anything.
    private func step() throws -> Bool {
        if !changed.isEmpty {
            try readChange(changed.removeFirst())
            return true
        }
        if queue.isEmpty { memory.sumUpDeclined(on: camera.name, report: context.report) }
        guard let candidate = queue.first, now >= downloadsPausedUntil else { return false }
        queue.removeFirst()
        let info: GPhoto2FileInfo
        do {
            info = try camera.info(candidate.path)
        } catch {
            if error.kind == .fileGone { return true }
            throw error
        }
        let key = Self.identityKey(candidate.path, info)
        known.insert(candidate.path)
        let wasOnCard = onCardAtConnect.contains(candidate.path)
        if Self.identityKeys(candidate.path, info).contains(where: memory.wasSeen) {
            noteTakenBefore(candidate.path, info: info)
            memory.decline(
                AlreadyTaken(fileName: candidate.path.name, matched: Self.identityText(candidate.path, info), atStart: wasOnCard),
                key: key, report: context.report)
            return true
        }
        let kind = Self.kind(of: candidate.path.name, mimeType: info.mimeType)
        guard kind == .jpeg || (kind == .raw && context.options.includeRAW) else {
            if kind == .raw {
                _ = context.options.capture?.photoAppeared(fileName: candidate.path.name, wasOnCardAtConnect: wasOnCard, willUpload: false)
            }
            if memory.skippedKeys.insert(key).inserted {
                let reason = kind == .raw ? "RAW, kept on the card (--include-raw takes RAW files too)" : "not a photo relay uploads"
                context.report(.skipped(fileName: candidate.path.name, reason: reason))
            }
            return true
        }
        if let size = info.size, !context.spool.hasRoom(forBytes: size) {
            known.remove(candidate.path)
            queue.insert(candidate, at: 0)
            if !reportedWaitingForRoom {
                reportedWaitingForRoom = true
                context.report(.spoolFull(waiting: queue.count))
            }
            return false
        }
        reportedWaitingForRoom = false
        var taken = candidate
        taken.shot =
            taken.shot
            ?? context.options.capture?.photoAppeared(
                fileName: candidate.path.name, wasOnCardAtConnect: wasOnCard,
                willUpload: true)
        try download(taken, info: info, key: key)
        return true
    }

    /// What makes the photo distinct on its camera whatever session lists it: path, size and
    /// the camera's time for it (file names repeat after a card is formatted).
    static func identityKey(_ path: GPhoto2FilePath, _ info: GPhoto2FileInfo) -> String {
        "\(path)|\(info.size.map(String.init) ?? "?")|\(info.modified.map(String.init) ?? "?")"
    }

    /// The file as its identity describes it, for the line that says it was taken before.
    static func identityText(_ path: GPhoto2FilePath, _ info: GPhoto2FileInfo) -> String {
        let size = info.size.map { "\($0) bytes" } ?? "size not given"
        let time = info.modified.map { ", camera time \(Timestamp.iso8601(Date(timeIntervalSince1970: Double($0))))" } ?? ""
        return "\(path), \(size)\(time)"
    }

    /// The keys the same file may have been seen under: libgphoto2 can give a file's time one
    /// second apart in two sessions (seen in the chaos matrix: a photo taken twice after a
    /// restart), so the seen-log is asked for the time ±2 s too (FAT keeps times in 2 s steps).
    static func identityKeys(_ path: GPhoto2FilePath, _ info: GPhoto2FileInfo) -> [String] {
        guard let modified = info.modified else { return [identityKey(path, info)] }
        return [0, -1, 1, -2, 2].map { offset in
            var shifted = info
            shifted.modified = modified + offset
            return identityKey(path, shifted)
        }
    }

    /// JPEG, RAW or other, by the driver's MIME type where it is JPEG, else by the extension.
    static func kind(of name: String, mimeType: String?) -> PTPObjectFormat.PhotoKind {
        if mimeType?.lowercased() == "image/jpeg" { return .jpeg }
        return PTPObjectFormat.undefined.photoKind(fileName: name)
    }

    // MARK: - Timed capture

    /// Fires the timed capture's shot if one is due: `gp_camera_trigger_capture` (the photo comes
    /// as an event, and relay does not wait while the camera saves), else `gp_camera_capture`.
    /// Busy answers are asked again as with PTP/IP; a lost camera throws.
    func fireDueShot() throws(GPhoto2Error) {
        guard let capture = context.options.capture, camera.canCapture, let shot = capture.takeDueShot() else { return }
        var busy = 0
        while true {
            do {
                if captureBlocks {
                    let path = try camera.capture()
                    if !known.contains(path) { queue.append(Candidate(path: path, detectedAt: Date())) }
                } else {
                    try camera.triggerCapture()
                }
                capture.triggerAccepted(shot, busyRetries: busy, exposureSeconds: nil)
                return
            } catch {
                switch error.kind {
                case .notSupported where !captureBlocks:
                    captureBlocks = true
                case .busy:
                    busy += 1
                    if busy >= CaptureTrigger.busyAttempts {
                        capture.triggerFailed(shot, reason: "the camera answered busy \(busy) times")
                        return
                    }
                    if context.stop.sleep(CaptureTrigger.busyBackoff.ceiling(attempt: busy - 1)) { return }
                case .connectionLost, .noCamera:
                    throw error
                default:
                    capture.triggerFailed(shot, reason: "\(error)")
                    return
                }
            }
        }
    }
}
