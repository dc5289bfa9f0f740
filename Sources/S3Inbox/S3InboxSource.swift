import Foundation
import Intake
import RelayCore
import RunEvents
import Spool
import Uploader

/// Takes each new JPEG under an S3 prefix into the spool, exactly once across every desk on the
/// inbox: a photo is claimed (a conditional PUT, `ClaimRules`) before it is downloaded, and its
/// claim becomes `done` once it is in the durable spool.
///
/// Unchecked Sendable because it is built on one thread and then handed, whole, to the one thread
/// that runs ``run(until:)``; that thread is from then on the only user of its bucket and state.
public final class S3InboxSource: PhotoSource, @unchecked Sendable {
    /// Why a pass over the inbox stopped: the store or the network failed; the pass is run again.
    struct Interrupted: Error {
        var said: String
    }

    public let options: S3InboxOptions
    let spool: Spool
    let report: SourceReporter
    let bucket: S3Bucket
    /// The claim renewals' own connection: they run while `bucket`'s is busy in a download.
    private let renewals: S3Bucket
    let prefix: String
    let rules: ClaimRules
    let taken: InboxTakenLog
    /// Downloads in progress, kept across restarts so that a cut one resumes with a Range.
    let partials: URL
    private let cancellation = UploadCancellation()
    /// What was said about a key and ETag that stays as it is (held by another desk, not a
    /// JPEG): said once, not every interval.
    var said: Set<String> = []
    /// The spool ids of photos that reached every destination since the last listing (told by
    /// the spool on a worker's thread; taken in by the source's own thread).
    private let everywhere = LockedBox<Set<String>>([])
    /// What was said once for the whole run (keys not matching `--inbox-photographer`, photos
    /// with nothing but their JPEG structure to check).
    var saidInRun: Set<String> = []

    public var label: String { options.label }

    public init(options: S3InboxOptions, spool: Spool, home: RelayHome, report: SourceReporter) throws {
        self.options = options
        self.spool = spool
        self.report = report
        bucket = try S3Bucket(config: options.config, environment: options.environment, cancellation: cancellation)
        renewals = try S3Bucket(config: options.config, environment: options.environment, cancellation: cancellation)
        prefix = bucket.location.inboxPrefix
        rules = ClaimRules(desk: try InboxDeskID.load(home: home), timeout: options.claimTimeout)
        let inbox = "\(bucket.location.endpoint)/\(bucket.location.bucket)/\(prefix)"
        taken = try InboxTakenLog(home: home, inbox: inbox)
        partials = home.root.appendingPathComponent("inbox-partial", isDirectory: true)
        if options.deleteDelivered {
            let source = Self.spoolSource(bucket: bucket.location.bucket)
            spool.onFinished { [everywhere] entry, settlement in
                guard entry.source == source, case .delivered = settlement, let legs = entry.destinations, !legs.isEmpty,
                    legs.values.allSatisfy({ $0.state == .delivered })
                else { return }
                everywhere.withLockedValue { _ = $0.insert(entry.id) }
            }
        }
    }

    /// The spool's name for where the inbox's photos come from.
    static func spoolSource(bucket: String) -> String { "s3:\(bucket)" }

    public func run(until stop: StopFlag) {
        stop.onStop { [cancellation] in cancellation.cancel() }
        guard checkConditionalWrites(stop) else { return }
        report(.info("inbox \(options.config.url): desk \(rules.desk), listed every \(options.every)s"))
        var failures = 0
        while !stop.isStopped {
            do throws(Interrupted) {
                try pass(stop)
                failures = 0
                stop.sleep(options.every)
            } catch {
                if stop.isStopped { return }
                let delay = options.backoff.delay(attempt: failures)
                failures += 1
                report(.notice("\(error.said); relay tries again in \(String(format: "%.1f", delay))s", .warning))
                stop.sleep(delay)
            }
        }
    }

    /// The startup check, asked again while the store cannot be reached; false when the inbox
    /// must not be used (said, and the run ends).
    private func checkConditionalWrites(_ stop: StopFlag) -> Bool {
        var failures = 0
        while !stop.isStopped {
            do throws(ConditionalWritesError) {
                try ConditionalWrites.check(
                    config: options.config, environment: options.environment, desk: rules.desk, cancellation: cancellation)
                return true
            } catch {
                guard case .unreachable = error else {
                    report(.unusable(error.description))
                    return false
                }
                let delay = options.backoff.delay(attempt: failures)
                failures += 1
                report(.notice(error.description, .warning))
                stop.sleep(delay)
            }
        }
        return false
    }

    /// One listing of the prefix, and every photo in it not yet taken (or, with
    /// `--inbox-delete`, taken and now at every destination).
    private func pass(_ stop: StopFlag) throws(Interrupted) {
        let arrived = everywhere.withLockedValue { ids in
            defer { ids = [] }
            return ids
        }
        if !arrived.isEmpty {
            do { try taken.markEverywhere(arrived) } catch {
                everywhere.withLockedValue { $0.formUnion(arrived) }
                report(.warning("could not remember that \(arrived.count) photo(s) reached every destination: \(error)"))
            }
        }
        let objects: [S3ListPage.Object]
        do { objects = try bucket.listAll(prefix: prefix) } catch { throw Interrupted(said: error.description) }
        for object in objects where !stop.isStopped {
            // nil for relay's own objects under `.relay/`: never photos.
            guard let claimKey = InboxClaim.key(for: object.key, prefix: prefix) else { continue }
            try look(at: object, claimKey: claimKey)
        }
    }

    func sayOnce(_ key: String, etag: ETag, _ event: SourceEvent) {
        if said.insert("\(key)\u{0}\(etag.value)\u{0}\(event)").inserted { report(event) }
    }

    func sayOnceInRun(_ topic: String, _ event: SourceEvent) {
        if saidInRun.insert(topic).inserted { report(event) }
    }

    /// Decides on one listed object and, when it is this desk's to take, takes it.
    private func look(at listed: S3ListPage.Object, claimKey: String) throws(Interrupted) {
        let etag = ETag(listed.etag)
        let name = bucket.location.displayName(key: listed.key)
        let known = taken.entry(listed.key)
        if let known, known.etag == etag {
            if known.state == .spooled, let claim = known.claim {
                try finish(listed.key, etag: etag, claim: claim, claimKey: claimKey, name: name)
            } else if known.state == .done, known.everywhere == true, options.deleteDelivered {
                try delete(listed.key, etag: etag, name: name)
            }
            return
        }
        guard PhotoKind.isJPEG(fileName: listed.key) else {
            sayOnce(listed.key, etag: etag, .skipped(fileName: name, reason: "not a JPEG"))
            return
        }
        if let known {
            sayOnce(
                listed.key, etag: etag,
                .notice("\(name) was uploaded again with other bytes (ETag \(known.etag.value), now \(etag.value)): a new photo", .info))
        }
        let object = InboxClaim.Object(key: listed.key, etag: etag)
        let seen: ClaimSeen
        let storeNow: Date
        switch ClaimLookup.read(bucket.perform(bucket.request("GET", key: claimKey))) {
        case .seen(let found, let now): (seen, storeNow) = (found, now)
        case .retryLater(let why): throw Interrupted(said: "could not read the claim of \(name) (\(why))")
        case .refused(let why):
            sayOnce(listed.key, etag: etag, .notice("the store refused to show the claim of \(name) (\(why)): left for now", .warning))
            return
        }
        let claimed: (claim: InboxClaim, etag: ETag)
        switch rules.decide(object, seen: seen, storeNow: storeNow) {
        case .leave(.done):
            // Taken by another desk, maybe after this one died downloading it: what it left goes.
            try? FileManager.default.removeItem(at: partial(listed.key, etag: etag))
            record(listed.key, etag: etag, .done, name: name)
            return
        case .leave(let reason):
            sayOnce(listed.key, etag: etag, .notice("\(name): \(Self.describe(reason))", .info))
            return
        case .resume(let claim, let etag):
            claimed = (claim, etag)
        case let decision:
            guard let write = decision.write else { return }
            if case .takeOver(_, let from, let idle, _) = decision {
                report(.notice("\(name): desk \(from)'s claim went unrenewed for \(Int(idle))s; this desk takes it over", .warning))
            }
            switch put(write.claim, write.condition, at: claimKey) {
            case .ours(let written?): claimed = (write.claim, written)
            case .ours(nil): throw Interrupted(said: "the store wrote the claim of \(name) without an ETag")
            case .lost(let why):
                guard let own = bucket.ownClaim(at: claimKey, desk: rules.desk, object: object), own.claim.state == .taking else {
                    sayOnce(listed.key, etag: etag, .notice("\(name): another desk claimed it first (\(why))", .info))
                    return
                }
                claimed = own
            case .retryLater(let why): throw Interrupted(said: "could not claim \(name) (\(why))")
            case .unsupported(let why), .refused(let why):
                sayOnce(listed.key, etag: etag, .notice("the store refused the claim of \(name) (\(why)): left for now", .warning))
                return
            }
        }
        let keeper = ClaimKeeper(
            claimed.claim, etag: claimed.etag, at: claimKey, bucket: renewals, every: rules.renewalInterval, name: name,
            report: report)
        defer { keeper.end() }
        try download(listed, etag: etag, keeper: keeper, claimKey: claimKey, name: name)
    }

    private static func describe(_ reason: LeaveReason) -> String {
        switch reason {
        case .done(let desk): "taken by desk \(desk)"
        // Without its idle time, which grows every listing: said once, not each time.
        case .held(let desk, let state, _): "desk \(desk) has it (\(state.rawValue))"
        case .earlierBytesInDelivery(let desk, _): "earlier bytes under this key are still with desk \(desk); the new ones wait"
        case .unreadableClaim: "its claim is not one relay can read: remove the claim object to have it taken"
        }
    }

    func put(_ claim: InboxClaim, _ condition: WriteCondition, at claimKey: String) -> ConditionalWriteAnswer {
        let request = bucket.request(
            "PUT", key: claimKey, headers: [condition.header], body: .inline(claim.encoded()), contentType: "application/json")
        return ConditionalWriteAnswer.read(bucket.perform(request), condition: condition)
    }

    /// Marks a spooled photo's claim `done`, so no desk takes these bytes again.
    func finish(_ key: String, etag: ETag, claim: ETag, claimKey: String, name: String) throws(Interrupted) {
        let now = Date()
        let done = InboxClaim(desk: rules.desk, object: .init(key: key, etag: etag), state: .done, started: now, renewed: now)
        switch put(done, .matches(claim), at: claimKey) {
        case .ours:
            record(key, etag: etag, .done, name: name)
        case .lost where bucket.ownClaim(at: claimKey, desk: rules.desk, object: done.object)?.claim.state == .done:
            // This desk's own `done`, whose answer was lost.
            record(key, etag: etag, .done, name: name)
        case .lost(let why):
            report(
                .notice(
                    "\(name) is spooled here but another desk took over its claim meanwhile (\(why)): it may reach the gallery "
                        + "twice; raise --inbox-claim-timeout", .warning))
            record(key, etag: etag, .done, name: name)
        case .retryLater(let why):
            throw Interrupted(said: "could not mark \(name) done (\(why))")
        case .unsupported(let why), .refused(let why):
            sayOnce(key, etag: etag, .notice("the store refused to mark \(name) done (\(why)); asked again next listing", .warning))
        }
    }

    /// Deletes a photo every destination has (`--inbox-delete`), only as the bytes this desk took
    /// (`If-Match`): other bytes put under its key since stay, and are a new photo.
    private func delete(_ key: String, etag: ETag, name: String) throws(Interrupted) {
        let request = bucket.request("DELETE", key: key, headers: [WriteCondition.matches(etag).header])
        switch ConditionalWriteAnswer.read(bucket.perform(request), condition: .matches(etag)) {
        case .ours:
            report(.notice("\(name): every destination has it; deleted from the inbox", .info))
            record(key, etag: etag, .deleted, name: name)
        case .lost:
            // Gone already, or replaced: the listing finds other bytes as a new photo.
            record(key, etag: etag, .deleted, name: name)
        case .retryLater(let why):
            throw Interrupted(said: "could not delete \(name) from the inbox (\(why))")
        case .unsupported(let why), .refused(let why):
            sayOnce(
                key, etag: etag,
                .notice(
                    "the store refused to delete \(name) (\(why)): give the desk's key s3:DeleteObject on the inbox, "
                        + "or run without --inbox-delete", .warning))
        }
    }

    func record(
        _ key: String, etag: ETag, _ state: InboxTakenLog.State, claim: ETag? = nil, spoolID: String? = nil, name: String
    ) {
        do {
            try taken.record(key, etag: etag, state, claim: claim, spoolID: spoolID)
        } catch {
            report(.warning("\(name) could not be remembered as \(state.rawValue): \(error)"))
        }
    }

}
