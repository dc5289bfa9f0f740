import FTPWire
import Foundation
import Intake
import RelayCore
import RunEvents
import Spool
import Uploader

extension S3InboxSource {
    /// Downloads the claimed object (resuming what a cut download left, unless this is the
    /// `retry`), checks it and spools it, while `keeper` renews the claim; a claim another desk took
    /// over meanwhile commits nothing.
    func download(
        _ listed: S3ListPage.Object, etag: ETag, keeper: ClaimKeeper, claimKey: String, name: String, retry: Bool = false
    ) throws(Interrupted) {
        try? FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
        let partial = partial(listed.key, etag: etag)
        let offset = !retry ? (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int64) ?? 0 : 0
        if offset > 0 { report(.notice("\(name): download resumed at byte \(offset)", .info)) }
        report(.announced(fileName: name, bytes: listed.size))
        let got: S3Bucket.Download
        do throws(S3BucketError) {
            got = try bucket.download(key: listed.key, to: partial.path, resumingAt: offset, etag: etag.value)
        } catch {
            switch error {
            case .unreachable: throw Interrupted(said: error.description)
            default:
                try? FileManager.default.removeItem(at: partial)
                report(.notice(error.description, .warning))
                return
            }
        }
        let partSizes: [Int64]
        do throws(S3BucketError) {
            partSizes = try multipartSizes(listed.key, etag: etag, checksum: got.checksumSHA256)
        } catch {
            switch error {
            case .unreachable: throw Interrupted(said: error.description)
            case .replaced:
                try? FileManager.default.removeItem(at: partial)
                report(.notice(error.description, .warning))
                return
            // A store that does not answer a part's HEAD: its checksum cannot be checked.
            default: partSizes = []
            }
        }
        let verdict: InboxObjectCheck
        do {
            verdict = try Self.check(
                partial, key: name, etag: etag, listedSize: listed.size, checksum: got.checksumSHA256, partSizes: partSizes)
        } catch {
            throw Interrupted(said: "could not read the download of \(name) (\(error))")
        }
        if case .refused(let why) = verdict {
            try? FileManager.default.removeItem(at: partial)
            if !retry {
                // The bytes may have been damaged on their way or on this disk (what a cut download
                // left is written without fsync) while the store's object is whole: one more try,
                // from the start, before the photo is refused for good.
                report(.notice("\(name): the download did not check (\(why)); downloaded again from the start", .warning))
                return try download(listed, etag: etag, keeper: keeper, claimKey: claimKey, name: name, retry: true)
            }
            report(.skipped(fileName: name, reason: why))
            // Released, so that a corrected upload (other bytes) is claimed anew.
            if case .held(let claim) = keeper.end() {
                _ = bucket.perform(bucket.request("DELETE", key: claimKey, headers: [WriteCondition.matches(claim).header]))
            }
            record(listed.key, etag: etag, .refused, name: name)
            return
        }
        if InboxObjectCheck.basis(etag: etag, checksum: got.checksumSHA256, partsKnown: !partSizes.isEmpty) == .structureOnly {
            sayOnceInRun(
                "structure only",
                .notice(
                    "\(name) has neither a SHA-256 checksum nor an MD5 ETag (a multipart upload): only its JPEG structure is "
                        + "checked, as for every such photo this run", .info))
        }
        var identity = PhotoIdentity(
            source: Self.spoolSource(bucket: bucket.location.bucket), fileName: (listed.key as NSString).lastPathComponent, bytes: got.size,
            capturedAt: listed.lastModified, uniqueKey: "\(listed.key)|\(etag.value)")
        identity.photographer = credit(listed.key, metadata: got.photographer, name: name)
        if spool.isFull { report(.spoolFull(waiting: nil)) }
        guard spool.waitForRoom(bytes: got.size) else { return }
        let claim: ETag
        switch keeper.end() {
        case .held(let etag): claim = etag
        case .lost(let said):
            // The other desk takes these bytes; the download is kept for nothing.
            try? FileManager.default.removeItem(at: partial)
            report(
                .notice("\(name): another desk took its claim over while this desk was taking it (\(said)); left to that desk", .warning))
            return
        }
        let entry: SpoolEntry
        do {
            entry = try spool.ingest(
                identity, write: { fd in try Self.copy(partial, to: fd) },
                committed: { record(listed.key, etag: etag, .spooled, claim: claim, spoolID: $0.id, name: name) })
        } catch {
            throw Interrupted(said: "\(name) could not be spooled (\(error))")
        }
        try? FileManager.default.removeItem(at: partial)
        report.spooled(entry, in: spool)
        try finish(listed.key, etag: etag, claim: claim, claimKey: claimKey, name: name)
    }

    /// Where the download of these bytes is kept while it is under way (and after a cut).
    func partial(_ key: String, etag: ETag) -> URL {
        var digest = SHA256Digest()
        digest.update(Array("\(key)\u{0}\(etag.value)".utf8))
        return partials.appendingPathComponent(digest.hex() + ".part")
    }

    /// The sizes of the parts a multipart upload with a SHA-256 checksum was made of (its checksum
    /// is of theirs); none for any other object, or one of more than 100 parts (a photo has a few).
    func multipartSizes(_ key: String, etag: ETag, checksum: String?) throws(S3BucketError) -> [Int64] {
        guard InboxObjectCheck.compositeSHA256(checksum, etag: etag) != nil, let dash = etag.value.lastIndex(of: "-"),
            let count = Int(etag.value[etag.value.index(after: dash)...]), (1...100).contains(count)
        else { return [] }
        return try bucket.partSizes(key: key, count: count, etag: etag.value)
    }

    /// Who is credited with the photo at `key`, by `--inbox-photographer` and its metadata.
    func credit(_ key: String, metadata: String?, name: String) -> String? {
        let template = options.photographer
        let credit = InboxPhotographer.credit(
            fromKey: template?.read(String(decoding: key.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)), metadata: metadata)
        switch credit.note {
        case nil: break
        case .keyDoesNotMatch:
            sayOnceInRun(
                "no match",
                .notice(
                    "\(name) is not a key --inbox-photographer '\(template?.template.text ?? "")' makes: it and every such "
                        + "photo this run are credited by their x-amz-meta-photographer (this one: \(metadata ?? "none"))", .warning))
        case .disagrees(let fromKey, let fromMetadata):
            sayOnceInRun(
                "disagrees\u{0}\(fromKey)\u{0}\(fromMetadata)",
                .notice(
                    "\(name): its key names \(fromKey), its x-amz-meta-photographer \(fromMetadata); credited to \(fromKey), "
                        + "as --inbox-photographer asks", .warning))
        }
        return credit.photographer
    }

    /// The download's verdict, from one read of the file (its digests and JPEG structure).
    static func check(
        _ file: URL, key: String, etag: ETag, listedSize: Int64, checksum: String?, partSizes: [Int64]
    ) throws -> InboxObjectCheck {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var digests = ObjectDigests(partSizes: partSizes)
        var structure = JPEGStructure()
        var bytes: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes {
                digests.update($0.bindMemory(to: UInt8.self))
                structure.feed($0)
            }
            bytes += Int64(chunk.count)
        }
        return InboxObjectCheck.judge(
            key: key, etag: etag, listedSize: listedSize, size: bytes, md5Hex: digests.md5Hex, checksum: checksum,
            sha256Base64: digests.sha256Base64, composite: digests.compositeSHA256, structure: structure.verdict)
    }

    /// Streams the downloaded file into the spool's descriptor.
    static func copy(_ file: URL, to fd: Int32) throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            try AtomicFile.writeAll(fd, chunk)
        }
    }
}
