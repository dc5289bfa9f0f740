import Foundation
import Intake
import PhotoMetadata
import RelayCore
import RunEvents
import Spool
import Uploader

/// `relay run`: photo sources (hot folders, cameras) feeding the spool, N upload workers draining
/// it, until stopped. Everything it has to say goes out as events on the bus it is given (the
/// console, `--json`, the status page and a timed capture's controller listen there).
///
/// Threads, not tasks: the workers block in libcurl, a hot folder blocks on the spool when it is
/// full, a camera source blocks on its camera, and none may starve the others on a 2-core box.
/// Shutdown: the sources stop taking photos (a camera's session is closed cleanly), the spool
/// stops handing out work, in-flight uploads get `graceSeconds` to finish and are then aborted;
/// whatever is left stays in the spool for the next run.
public final class RelayRun {

    public struct Options: Sendable {
        /// Where photos come from: hot folders, cameras, the FTP receiver.
        public var sources: [any SourceSetting]
        public var configQuery: String?
        /// Further configs: each photo goes to every one of them too (`--config A --config B`).
        public var moreConfigQueries: [String] = []
        public var workers: Int
        public var limits: SpoolLimits
        public var graceSeconds: TimeInterval
        public var policy: DeliveryPolicy
        /// The named session (`--session`): its photos are recorded as delivered, `{run}` is its
        /// name, and a clean end with everything delivered sends each destination its manifest.
        public var session: String?
        /// `--photographer`: who shoots with this relay, for photos whose source names nobody;
        /// over the owner the camera writes.
        public var photographer: String?

        public init(
            sources: [any SourceSetting], configQuery: String? = nil, workers: Int = 2, limits: SpoolLimits = SpoolLimits(),
            graceSeconds: TimeInterval = 15, policy: DeliveryPolicy = DeliveryPolicy(), moreConfigQueries: [String] = []
        ) {
            self.sources = sources
            self.configQuery = configQuery
            self.moreConfigQueries = moreConfigQueries
            self.workers = workers
            self.limits = limits
            self.graceSeconds = graceSeconds
            self.policy = policy
        }
    }

    public let options: Options
    /// The run's destinations, those of normal priority first, each group in the order named.
    /// Every photo goes to each; what each is sent (its rendition or the original, a photo still
    /// downloading, the photos its rule admits) is its own config's, whatever its place.
    public let destinations: [RequestConfig]
    /// The renditions the destinations ask for, each once (destinations that name the same spec
    /// share its file).
    let renditions: [RenditionSpec]
    let spool: Spool
    private let history: HistoryStore
    /// Writes the stamp template into the photos sent (`relay stamp`).
    private let stamper: PhotoStamper
    private let sources: [any PhotoSource]
    /// The label each source's events carry, in the order given.
    private let sourceLabels: [String]
    private let bus: RunEventBus
    private let state: LiveRunState
    private let cancellation = UploadCancellation()
    private let environment: [String: String]
    private let sourceFailure = SourceFailure()
    private let session: SessionLedger?
    /// The ids of every config the user has, to tell a destination this run does not deliver to
    /// from one that no longer exists.
    private let knownConfigIDs: Set<String>
    let reviewFeed: ReviewFeed

    /// Checks everything that can be wrong before the first photo moves: the config (and its
    /// `${VAR}` references), the state files, the spool lock and the folder.
    public init(home: RelayHome, options: Options, environment: [String: String], bus: RunEventBus) throws(RunError) {
        self.options = options
        self.environment = environment
        self.bus = bus
        state = LiveRunState(following: bus)
        bus.subscribe { [sourceFailure] event in
            if case .source(_, .unusable(let message)) = event.event { sourceFailure.record(message) }
        }
        for source in options.sources {
            if let problem = source.problem(home: home) { throw .source(problem) }
        }
        do {
            try home.createIfNeeded()
            let store = ConfigStore(home: home)
            var configs = [try store.resolve(options.configQuery)]
            for query in options.moreConfigQueries {
                let another = try store.resolve(query)
                if !configs.contains(where: { $0.id == another.id }) { configs.append(another) }
            }
            destinations = configs.filter { $0.priority != .low } + configs.filter { $0.priority == .low }
            history = try HistoryStore(home: home)
            stamper = PhotoStamper(home: home, bus: bus)
        } catch let error as ConfigError {
            throw .config(error)
        } catch let error as StateFileError {
            throw .state(error)
        } catch {
            throw .source("\(error)")
        }
        do {
            for checked in destinations {
                try Destinations.validate(checked)
                try Destinations.checkEnvironment(checked, environment: environment)
            }
        } catch {
            throw .config(error)
        }
        renditions = destinations.compactMap(\.renditionSpec).reduce(into: []) { specs, spec in
            if !specs.contains(where: { $0.key == spec.key }) { specs.append(spec) }
        }
        if let name = options.session {
            guard SessionRecord.isValidName(name) else {
                throw .source(
                    "the session name '\(name)' can only use letters, digits, '-', '_' and '.' (it names a folder "
                        + "at every destination); pick another")
            }
            do { session = try SessionLedger(home: home, name: name) } catch { throw .state(error) }
        } else {
            session = nil
        }
        // Every photo records the destinations it is taken for, so that a later run that
        // names fewer never drops the others' deliveries.
        let legs = SpoolDestinations(
            destinations.map {
                SpoolDestination(
                    id: $0.id.uuidString, label: $0.label, lowPriority: $0.priority == .low, rendition: $0.renditionSpec?.key,
                    takesGrowing: Destinations.acceptsGrowingFiles($0), rule: $0.sendRule, selection: $0.selectionPolicy)
            })
        do {
            // A destination that sends selected photos needs each photo's rating from its file.
            let selects = destinations.contains { $0.sendRule.readsSelection }
            spool = try Spool(
                directory: home.spoolDirectory, limits: options.limits,
                destinations: legs,
                readHeader: { [photographer = options.photographer] url in
                    var facts = PhotoFileHeader.facts(of: url, rating: selects)
                    facts.photographer = photographer ?? facts.photographer
                    return facts
                })
        } catch {
            throw .spool(error)
        }
        knownConfigIDs = Set(((try? ConfigStore(home: home).load().configs) ?? []).map(\.id.uuidString))
        do {
            reviewFeed = try ReviewFeed(journal: ReviewJournal(home: home), spool: spool, history: history, bus: bus)
        } catch {
            throw .state(.unreadable(path: home.reviewFile.path, reason: "relay cannot watch it (\(error))"))
        }
        stamper.readCaptions { [reviewFeed] in reviewFeed.caption(of: $0) }
        sourceLabels = options.sources.map(\.label)
        do {
            sources = try Self.makeSources(options.sources, labels: sourceLabels, spool: spool, home: home, bus: bus)
        } catch let error as StateFileError {
            throw .state(error)
        } catch {
            throw .source("\(error)")
        }
    }

    private static func makeSources(
        _ settings: [any SourceSetting], labels: [String], spool: Spool, home: RelayHome,
        bus: RunEventBus
    ) throws -> [any PhotoSource] {
        try zip(settings, labels).map { setting, label in
            try setting.makeSource(spool: spool, home: home, report: bus.reporter(for: label))
        }
    }

    /// Runs until `stop` is set (by SIGINT/SIGTERM), then shuts down as described above.
    /// `abort` cuts the grace period short (a second Ctrl-C). A source that cannot be used at all
    /// (`TetherEvent.unusable`) ends the run the same way, which then throws its message.
    /// `heartbeat` is called on its clock while the run takes photos and while it waits for the
    /// uploads in flight (systemd's watchdog); without it the run's thread waits only for events.
    /// `ready` is called once the decisions made while relay was stopped are applied, before the
    /// first photo moves (the editor's page is served from then on).
    public func run(
        stop: StopFlag, abort: StopFlag = StopFlag(), heartbeat: Heartbeat? = nil, ready: () -> Void = {}
    ) throws(RunError) {
        let waiting = spool.waitingElsewhere()
        bus.publish(
            .run(
                .started(
                    RunDescription(
                        sources: sourceLabels, destinations: destinations.map(Self.describe), workers: options.workers,
                        resumed: spool.pendingForRun(),
                        rendition: renditions.isEmpty ? nil : renditions.map(\.summary).joined(separator: "; "),
                        waitingElsewhere: waiting.map { WaitingElsewhere(label: $0.label, photos: $0.photos.count) }))))
        if let notice = history.setAsideNotice { bus.publish(.run(.notice(notice, .warning))) }
        for problem in spool.problems { bus.publish(.run(.notice("spool: \(problem)", .warning))) }
        for notice in SpoolNotices.atStart(
            adopted: spool.adoptedAtStart, destinations: destinations,
            waiting: waiting, knownConfigIDs: knownConfigIDs)
        {
            bus.publish(.run(.notice(notice, .warning)))
        }
        reviewFeed.start()
        ready()
        Thread.detachNewThread { [reviewFeed] in reviewFeed.run() }
        defer { reviewFeed.stop() }
        let wake = LockedBox(RunWake())
        spool.onChange { wake.change { $0.spoolChanges &+= 1 } }
        stop.onStop { wake.change { $0.stopping = true } }
        sourceFailure.onFailure { wake.change { $0.stopping = true } }
        abort.onStop { wake.change { $0.aborted = true } }
        var workers: [any Runnable] = []
        var gates: [GalleryGate] = []
        for destination in destinations {
            let id = destination.id.uuidString
            let gate = GalleryGate(backoff: options.policy.backoff, bus: bus, label: destination.label) { [spool] reachable in
                spool.setReachable(reachable, destination: id)
            }
            gates.append(gate)
            let context = DeliveryWorker.Context(
                spool: spool, config: destination, environment: environment, history: history, policy: options.policy, bus: bus,
                cancellation: cancellation, gate: gate, session: session, stamper: stamper)
            for _ in 0..<max(1, options.workers) {
                do { workers.append(try DeliveryWorker(context: context)) } catch { throw .uploader(error) }
            }
        }
        if !renditions.isEmpty {
            let stage = RenditionStage(spool: spool, specs: renditions, bus: bus)
            Thread.detachNewThread { stage.run() }
        }
        wake.change { $0.workersLeft = workers.count }
        for worker in workers {
            Thread.detachNewThread {
                worker.run()
                wake.change { $0.workersLeft -= 1 }
            }
        }
        let sourceStop = StopFlag()
        let sourceDone = DispatchGroup()
        for source in sources {
            sourceDone.enter()
            Thread.detachNewThread {
                source.run(until: sourceStop)
                sourceDone.leave()
            }
        }

        var queues = QueueWatch(spool: spool, configs: destinations)
        queues.publishChanges(on: bus)
        queues.publishUsage(on: bus)
        var seen = 0
        var lastLook = Date()
        var nextBeat = heartbeat.map { Date().addingTimeInterval($0.interval) }
        var wasFull = false
        /// Publishes what changed since the last look, and beats when the heartbeat is due.
        func look(_ turn: RunWake, usage: Bool) {
            if turn.spoolChanges != seen {
                seen = turn.spoolChanges
                lastLook = Date()
                queues.publishChanges(on: bus)
                if usage { queues.publishUsage(on: bus) }
            }
            if let heartbeat, let due = nextBeat, Date() >= due {
                heartbeat.beat()
                nextBeat = Date().addingTimeInterval(heartbeat.interval)
            }
        }
        while true {
            // Looked at before each wait too: a spool full from the start changes no more.
            let full = spool.isFull
            if full && !wasFull, let notice = SpoolNotices.whenFull(waiting: spool.waitingElsewhere()) {
                bus.publish(.run(.notice(notice, .warning)))
            }
            wasFull = full
            let turn = RunWake.turn(in: wake, seen: seen, lastLook: lastLook, until: nextBeat) { $0.stopping }
            if turn.stopping { break }
            look(turn, usage: true)
        }

        bus.publish(.run(.stopping(graceSeconds: options.graceSeconds)))
        sourceStop.stop()
        spool.close()
        for gate in gates { gate.close() }
        let deadline = Date().addingTimeInterval(options.graceSeconds)
        while true {
            let turn = RunWake.turn(in: wake, seen: seen, lastLook: lastLook, until: min(deadline, nextBeat ?? deadline)) {
                $0.workersLeft == 0 || $0.aborted
            }
            if turn.workersLeft == 0 { break }
            if turn.aborted || Date() >= deadline {
                cancellation.cancel()
                let cutOff = Date().addingTimeInterval(15)
                _ = RunWake.turn(in: wake, seen: nil, until: cutOff) { $0.workersLeft == 0 }
                break
            }
            look(turn, usage: false)
        }
        _ = sourceDone.wait(timeout: .now() + 15)
        queues.publishChanges(on: bus)
        // A stuck observer (a --json reader that stopped reading) may not hold up the end.
        bus.flush(until: Date().addingTimeInterval(1))
        let counts = spool.counts()
        let held = spool.queues().compactMap { id, queue in
            queue.held > 0 ? destinations.first { $0.id.uuidString == id }.map { ($0.label, queue.held) } : nil
        }
        let s = state.snapshot
        if let stamped = stamper.summary { bus.publish(.run(.notice(stamped, .info))) }
        bus.publish(
            .run(
                .stopped(
                    RunTotals(
                        s, left: counts.queued + counts.inFlight,
                        failedInSpool: counts.failed, held: Dictionary(held, uniquingKeysWith: +)))))
        if let message = sourceFailure.message { throw .source(message) }
        if let session {
            if counts.queued + counts.inFlight + counts.failed == 0 && !cancellation.isCancelled {
                SessionCompletion.announce(
                    session, configs: destinations, environment: environment,
                    policy: options.policy, cancellation: UploadCancellation(), bus: bus)
            } else {
                bus.publish(
                    .run(
                        .notice(
                            "session \(session.name): not complete (photos are left in the spool); its manifest is "
                                + "sent by the run with --session \(session.name) that delivers them", .info)))
            }
        }
        bus.flush(until: Date().addingTimeInterval(1))
    }

    private static func describe(_ config: RequestConfig) -> DestinationDescription {
        DestinationDescription(
            label: config.label, target: Destinations.target(of: config),
            lowPriority: config.priority == .low)
    }
}
