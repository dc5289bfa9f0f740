import Foundation
import PTPWire
import RelayCore

/// One object on the simulated camera: a folder (association) or a photo.
public struct SimObject: Sendable, Equatable {
    public let handle: UInt32
    public let storageID: UInt32
    /// Handle of the folder holding it; 0 for the root.
    public let parent: UInt32
    public let format: UInt16
    public let name: String
    /// Its bytes (rewritten when the photographer rates the shot, as bodies write the rating
    /// into the file on the card).
    public internal(set) var content: PhotoContent
    public let captureDate: Date
    /// A shot kept in camera memory (Canon RequestObjectTransfer): not on the card, gone after
    /// TransferComplete.
    public let inMemory: Bool
    /// Protected on the card (ObjectInfo's ProtectionStatus 0x0001, read-only).
    public internal(set) var isProtected = false

    public var isFolder: Bool { content == .folder }
    public var size: Int { content.size }
}

/// The camera's storage and its photos, shared between the session that serves a client and
/// whatever shoots (the schedule, a signal, stdin, a capture operation).
///
/// What changes on it (its objects, what is queued for the session, the numbering) is reachable
/// only in `contents`' box; the rest is `let`.
public final class CameraCard: Sendable {
    public static let storageID: UInt32 = 0x0001_0001
    public static let formatAssociation: UInt16 = 0x3001
    public static let formatJPEG: UInt16 = 0x3801

    public let profile: SimProfile
    let options: SimOptions
    /// The body's battery, which each frame shot drains.
    public let battery: SimBattery
    /// The mode dial and the shutter speed, written into each generated JPEG.
    public let exposure: SimExposure
    /// The card's objects and what the session is yet to be told, shared between the session
    /// and whatever shoots.
    let contents: LockedBox<Contents>

    /// What ``contents`` holds.
    struct Contents: Sendable {
        /// Bytes of photos on the card at start.
        var usedAtStart = 0
        var objects: [UInt32: SimObject] = [:]
        var order: [UInt32] = []
        /// Objects whose info changed (protected, rated) since the session last looked.
        var changed: [UInt32] = []
        /// Objects the photographer sent with the body's transfer button, not yet announced.
        var transferRequests: [UInt32] = []
        var nextHandle: UInt32
        var photoNumber = 0
        var pending: [SimObject] = []
        var folderHandle: UInt32 = 0
        var sourcePhotos: [(jpeg: URL, raw: URL?)] = []
        var sourceCursor = 0

        mutating func addObject(
            parent: UInt32, format: UInt16, name: String, content: PhotoContent,
            date: Date, inMemory: Bool
        ) -> SimObject {
            let object = SimObject(
                handle: nextHandle, storageID: inMemory ? 0 : CameraCard.storageID, parent: parent,
                format: format, name: name, content: content, captureDate: date, inMemory: inMemory)
            nextHandle &+= 1
            objects[object.handle] = object
            order.append(object.handle)
            return object
        }
    }

    /// Bytes of photos on the card at start, for the free space (CameraCard+Space.swift).
    var usedAtStart: Int { contents.withLockedValue { $0.usedAtStart } }

    /// Builds the card: DCIM/<vendor folder>, then the `--photos` files or generated ones.
    public init(options: SimOptions) throws {
        self.options = options
        self.profile = options.profile
        battery = SimBattery(options.resources)
        let speeds = SimExposure.speeds(of: options.profile)
        exposure = SimExposure(mode: options.exposureMode, offered: speeds.offered, speed: speeds.start)
        contents = LockedBox(Contents(nextHandle: options.firstHandle))
        // Filled before the card is handed out, so that its folders are read with no lock held.
        var filled = Contents(nextHandle: options.firstHandle)
        let now = Date()
        let dcim = filled.addObject(parent: 0, format: Self.formatAssociation, name: "DCIM", content: .folder, date: now, inMemory: false)
        filled.folderHandle =
            filled.addObject(
                parent: dcim.handle, format: Self.formatAssociation, name: profile.folderName,
                content: .folder, date: now, inMemory: false
            ).handle
        if let directory = options.photosDirectory {
            try loadFolder(directory, date: now, into: &filled)
        } else if let card = options.cardDirectory {
            try loadCard(card, into: &filled)
        } else {
            for _ in 0..<options.initialPhotos { exportShot(makeShot(date: now, inMemory: false, in: &filled)) }
        }
        filled.usedAtStart = filled.objects.values.reduce(0) { $0 + ($1.inMemory ? 0 : $1.size) }
        contents.withLockedValue { $0 = filled }
    }

    private func loadFolder(_ directory: String, date: Date, into contents: inout Contents) throws {
        let url = URL(fileURLWithPath: directory)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw CameraSimError.cannotReadPhoto(path: directory, reason: "cannot list the folder")
        }
        let rawExtensions: Set<String> = ["cr2", "cr3", "crw", "nef", "nrw", "arw", "raf", "orf", "rw2", "dng", "raw"]
        var added = 0
        for name in names {
            let fileURL = url.appendingPathComponent(name)
            let lowerExtension = fileURL.pathExtension.lowercased()
            let isJPEG = lowerExtension == "jpg" || lowerExtension == "jpeg"
            guard isJPEG || rawExtensions.contains(lowerExtension) else { continue }
            let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL.path)
            guard let size = (attributes?[.size] as? NSNumber)?.intValue,
                (attributes?[.type] as? FileAttributeType) == .typeRegular
            else { continue }
            let format = isJPEG ? Self.formatJPEG : Self.rawFormatCode(extension: lowerExtension, profile: profile)
            _ = contents.addObject(
                parent: contents.folderHandle, format: format, name: name,
                content: .file(path: fileURL.path, size: size), date: date, inMemory: false)
            added += 1
            if isJPEG {
                let base = fileURL.deletingPathExtension().lastPathComponent
                let raw = names.first { other in
                    let o = URL(fileURLWithPath: other)
                    return o.deletingPathExtension().lastPathComponent == base
                        && rawExtensions.contains(o.pathExtension.lowercased())
                }.map { url.appendingPathComponent($0) }
                contents.sourcePhotos.append((fileURL, raw))
            }
        }
        guard added > 0 else { throw CameraSimError.noPhotosInFolder(path: directory) }
        contents.photoNumber = contents.sourcePhotos.count
    }

    /// `--card`: the photos a card kept from earlier runs, in name order, each dated by its
    /// file's time (when it was shot); numbering goes on after the highest number among them.
    private func loadCard(_ directory: String, into contents: inout Contents) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CameraSimError.cannotReadPhoto(path: directory, reason: "cannot make the card's folder")
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        for name in names {
            let url = URL(fileURLWithPath: directory).appendingPathComponent(name)
            let lower = url.pathExtension.lowercased()
            let isJPEG = lower == "jpg" || lower == "jpeg"
            guard isJPEG || lower == profile.rawFormat.fileExtension.lowercased(),
                let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                let size = (attributes[.size] as? NSNumber)?.intValue
            else { continue }
            _ = contents.addObject(
                parent: contents.folderHandle, format: isJPEG ? Self.formatJPEG : profile.rawFormat.formatCode, name: name,
                content: .file(path: url.path, size: size), date: attributes[.modificationDate] as? Date ?? Date(), inMemory: false)
            let number = Int(url.deletingPathExtension().lastPathComponent.filter(\.isNumber)) ?? 0
            contents.photoNumber = max(contents.photoNumber, number)
        }
    }

    static func rawFormatCode(extension lower: String, profile: SimProfile) -> UInt16 {
        switch lower {
        case "cr3": return 0xB108
        case "cr2": return 0xB103
        case "crw": return 0xB101
        case "arw": return 0xB101
        case "dng": return 0x3811
        default: return 0x3000
        }
    }

    // MARK: - Shooting

    /// Takes `frames` new photos (each with its RAW companion when asked for) and queues them
    /// to be announced to the connected client. Returns the new objects, once their copies in
    /// the export and card folders are written (with no lock held).
    @discardableResult
    public func shoot(frames: Int) -> [SimObject] {
        let made = contents.withLockedValue { (contents: inout Contents) -> [SimObject] in
            var shots: [SimObject] = []
            for _ in 0..<max(1, frames) {
                shots += makeShot(date: Date(), inMemory: options.captureToMemory, in: &contents)
                battery.frameShot()
            }
            contents.pending += shots.filter { !isAnnouncementLost($0) }
            return shots
        }
        exportShot(made)
        return made
    }

    /// `--lose-events`: whether the camera "forgets" to announce this photo (it is on the card
    /// all the same, for a client's listing to find). Decided per handle from the seed.
    private func isAnnouncementLost(_ object: SimObject) -> Bool {
        guard options.faults.loseEvents > 0 else { return false }
        var random = SeededRandom.derived(seed: options.seed, stream: 5, index: UInt64(object.handle))
        return Double(random.next() % 1_000_000) / 1_000_000 < options.faults.loseEvents
    }

    /// One frame into `contents`: its JPEG, and its RAW companion when asked for; their copies
    /// are written by ``exportShot(_:)``.
    private func makeShot(date: Date, inMemory: Bool, in contents: inout Contents) -> [SimObject] {
        contents.photoNumber += 1
        let photoNumber = contents.photoNumber
        let base = profile.baseName(number: photoNumber)
        let parent = inMemory ? 0 : contents.folderHandle
        let jpegContent: PhotoContent
        var rawContent: PhotoContent?
        var rawExtension = profile.rawFormat.fileExtension
        var rawFormat = profile.rawFormat.formatCode
        if !contents.sourcePhotos.isEmpty {
            let source = contents.sourcePhotos[contents.sourceCursor % contents.sourcePhotos.count]
            contents.sourceCursor += 1
            jpegContent = .file(path: source.jpeg.path, size: Self.fileSize(source.jpeg))
            if let raw = source.raw {
                rawContent = .file(path: raw.path, size: Self.fileSize(raw))
                rawExtension = raw.pathExtension.uppercased()
                rawFormat = Self.rawFormatCode(extension: raw.pathExtension.lowercased(), profile: profile)
            }
        } else {
            var random = SeededRandom.derived(seed: options.seed, stream: 1, index: UInt64(photoNumber))
            let body = profile.body
            let exif = SimExif(
                make: body.manufacturer, model: body.model, serial: body.exifSerial, capturedAt: date, shutterCount: photoNumber,
                exposureTime: exposure.current, nikonMakerNote: body.manufacturer.hasPrefix("Nikon"))
            jpegContent = .bytes(
                JPEGMaker.make(
                    width: options.photoWidth, height: options.photoHeight,
                    targetSize: options.photoSize,
                    label: "\(profile.rawValue) \(base) seed \(options.seed)",
                    exif: exif.segmentBody, random: &random))
        }
        if options.raw && rawContent == nil {
            var random = SeededRandom.derived(seed: options.seed, stream: 2, index: UInt64(photoNumber))
            rawContent = .bytes(RawMaker.make(fileExtension: rawExtension, size: options.rawSize, random: &random))
        }
        var made = [
            contents.addObject(
                parent: parent, format: Self.formatJPEG, name: base + ".JPG",
                content: jpegContent, date: date, inMemory: inMemory)
        ]
        if let rawContent {
            made.append(
                contents.addObject(
                    parent: parent, format: rawFormat, name: base + "." + rawExtension,
                    content: rawContent, date: date, inMemory: inMemory))
        }
        return made
    }

    /// Copies new shots into the export folder, and those on the card into the card's folder
    /// (for the next run), each dated when it was shot.
    private func exportShot(_ made: [SimObject]) {
        for object in made {
            for folder in [options.exportDirectory, object.inMemory ? nil : options.cardDirectory].compactMap({ $0 }) {
                Self.export(object, to: folder, date: object.captureDate)
            }
        }
    }

    private static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// A copy of `object` in `directory`, dated `date` (a card's photo keeps its shot's time).
    private static func export(_ object: SimObject, to directory: String, date: Date) {
        let target = URL(fileURLWithPath: directory).appendingPathComponent(object.name)
        switch object.content {
        case .bytes(let bytes):
            _ = FileManager.default.createFile(atPath: target.path, contents: Data(bytes))
        case .file(let path, _):
            try? FileManager.default.removeItem(at: target)
            try? FileManager.default.copyItem(atPath: path, toPath: target.path)
        case .folder:
            return
        }
        try? FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: target.path)
    }

    // MARK: - What a session asks

    /// Photos shot since the last call, each returned once, oldest first.
    public func takeNewObjects() -> [SimObject] {
        contents.withLockedValue { contents in
            defer { contents.pending.removeAll() }
            return contents.pending
        }
    }

    /// Forgets announcements meant for an earlier client, but for captures held in camera memory:
    /// those exist nowhere else, so the next client is asked to take them.
    public func clearNewObjects() {
        contents.withLockedValue { $0.pending.removeAll { !$0.inMemory } }
    }

    public func object(_ handle: UInt32) -> SimObject? {
        contents.withLockedValue { $0.objects[handle] }
    }

    /// Handles on the card, filtered as GetObjectHandles asks: `parent` 0xFFFFFFFF = root
    /// only, 0 = all, otherwise that folder's children; `format` 0 = any.
    public func handles(format: UInt16, parent: UInt32) -> [UInt32] {
        contents.withLockedValue { contents in
            contents.order.compactMap { handle in
                guard let object = contents.objects[handle], !object.inMemory else { return nil }
                if format != 0 && object.format != format { return nil }
                switch parent {
                case 0: return handle
                case 0xFFFF_FFFF: return object.parent == 0 ? handle : nil
                default: return object.parent == parent ? handle : nil
                }
            }
        }
    }

    /// Photos held in camera memory (not on the card), oldest first.
    public func memoryObjects() -> [SimObject] {
        contents.withLockedValue { contents in contents.order.compactMap { contents.objects[$0] }.filter(\.inMemory) }
    }

    /// Removes a photo (not a folder). False when there is no such photo.
    public func delete(_ handle: UInt32) -> Bool {
        contents.withLockedValue { contents in
            guard let object = contents.objects[handle], !object.isFolder else { return false }
            contents.objects[handle] = nil
            contents.order.removeAll { $0 == handle }
            return true
        }
    }

    /// Bytes used by photos on the card.
    public var usedBytes: Int {
        contents.withLockedValue { $0.objects.values.reduce(0) { $0 + ($1.inMemory ? 0 : $1.size) } }
    }

    public var objectCount: Int {
        contents.withLockedValue { $0.objects.values.filter { !$0.inMemory }.count }
    }
}
