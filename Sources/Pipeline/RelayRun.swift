import Foundation
import FTPReceiver
import RelayCore
import Spool
import Tether
import Uploader

/// `relay run`: photo sources (hot folders, cameras) feeding the spool, N upload workers draining
/// it, until stopped.
///
/// Threads, not tasks: the workers block in libcurl, a hot folder blocks on the spool when it is
/// full, a camera source blocks on its camera, and none may starve the others on a 2-core box.
/// Shutdown: the sources stop taking photos (a camera's session is closed cleanly), the spool
/// stops handing out work, in-flight uploads get `graceSeconds` to finish and are then aborted;
/// whatever is left stays in the spool for the next run.
public final class RelayRun {
    /// Where photos come from.
    public enum SourceSpec: Sendable {
        /// A hot folder, a file taken once its size has not changed for `settleSeconds`.
        case folder(URL, settleSeconds: TimeInterval)
        /// A PTP/IP camera.
        case camera(CameraSource.Options)
        /// A camera libgphoto2 opens (USB, or any libgphoto2 port).
        case gphoto2(GPhoto2Source.Options)
        /// The built-in FTP receiver cameras upload to.
        case ftp(FTPReceiverOptions)
    }

    public struct Options: Sendable {
        public var sources: [SourceSpec]
        public var configQuery: String?
        /// Further configs: each photo goes to every one of them too (`--config A --config B`).
        public var moreConfigQueries: [String] = []
        public var workers: Int
        public var limits: SpoolLimits
        public var graceSeconds: TimeInterval
        public var policy: DeliveryPolicy
        /// Told when a photo's upload is settled: delivered (true) or refused for good (false).
        public var onUploadSettled: (@Sendable (SpoolEntry, Bool) -> Void)?
        /// A part shown first in the progress line (a timed capture's shot count).
        public var statusLine: (@Sendable () -> String)?
        /// The named session (`--session`): its photos are recorded as delivered, `{run}` is its
        /// name, and a clean end with everything delivered sends each destination its manifest.
        public var session: String?

        public init(
            sources: [SourceSpec], configQuery: String? = nil, workers: Int = 2, limits: SpoolLimits = SpoolLimits(),
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
    /// The primary destination: the first config of normal priority (renditions, uploads
    /// during the download and the progress line's latency are its).
    public let config: RequestConfig
    /// The run's other destinations, each fed on its own.
    public let otherConfigs: [RequestConfig]
    private let spool: Spool
    private let history: HistoryStore
    private let sources: [any PhotoSource]
    private let statistics = RunStatistics()
    private let console: RunConsole
    private let cancellation = UploadCancellation()
    private let environment: [String: String]
    private let sourceFailure = SourceFailure()
    private let session: SessionLedger?

    /// Checks everything that can be wrong before the first photo moves: the config (and its
    /// `${VAR}` references), the state files, the spool lock and the folder.
    public init(home: RelayHome, options: Options, environment: [String: String], console: RunConsole) throws(RunError) {
        self.options = options
        self.environment = environment
        self.console = console
        for case .folder(let folder, _) in options.sources {
            if let problem = HotFolderSource.validate(folder, home: home) { throw .source(problem) }
        }
        do {
            try home.createIfNeeded()
            let store = ConfigStore(home: home)
            var configs = [try store.resolve(options.configQuery)]
            for query in options.moreConfigQueries {
                let another = try store.resolve(query)
                if !configs.contains(where: { $0.id == another.id }) { configs.append(another) }
            }
            let primary = configs.firstIndex { $0.priority != .low } ?? 0
            config = configs.remove(at: primary)
            otherConfigs = configs
            history = try HistoryStore(home: home)
        } catch let error as ConfigError {
            throw .config(error)
        } catch let error as StateFileError {
            throw .state(error)
        } catch {
            throw .source("\(error)")
        }
        do {
            for checked in [config] + otherConfigs {
                try checked.validate()
                try Destinations.checkEnvironment(checked, environment: environment)
            }
        } catch {
            throw .config(error)
        }
        if let other = otherConfigs.first(where: { $0.renditionSpec != nil }) {
            throw .config(.invalidSetting("rendition", reason: "config '\(other.label)' asks for a rendition, but only the run's "
                + "first config (\(config.label)) gets one; the others receive the original. Give it first, or remove its rendition"))
        }
        if let name = options.session {
            guard SessionRecord.isValidName(name) else {
                throw .source("the session name '\(name)' can only use letters, digits, '-', '_' and '.' (it names a folder "
                    + "at every destination); pick another")
            }
            do { session = try SessionLedger(home: home, name: name) } catch { throw .state(error) }
        } else {
            session = nil
        }
        let destinations = otherConfigs.isEmpty ? nil : SpoolDestinations(
            primary: .init(id: config.id.uuidString, label: config.label, lowPriority: config.priority == .low),
            others: otherConfigs.map { .init(id: $0.id.uuidString, label: $0.label, lowPriority: $0.priority == .low) })
        do {
            spool = try Spool(directory: home.spoolDirectory, limits: options.limits, renditionKey: config.renditionSpec?.key,
                              destinations: destinations)
        } catch {
            throw .spool(error)
        }
        do {
            sources = try Self.makeSources(options.sources, spool: spool, home: home, statistics: statistics, console: console,
                                           failure: sourceFailure)
        } catch let error as StateFileError {
            throw .state(error)
        } catch {
            throw .source("\(error)")
        }
    }

    private static func makeSources(_ specs: [SourceSpec], spool: Spool, home: RelayHome, statistics: RunStatistics,
                                    console: RunConsole, failure: SourceFailure) throws -> [any PhotoSource] {
        var sources: [any PhotoSource] = []
        for spec in specs {
            let label: String
            switch spec {
            case .folder(let folder, _): label = "folder \(folder.path)"
            case .camera(let camera): label = "camera \(camera.address)"
            case .gphoto2(let camera): label = "camera \(camera.port)"
            case .ftp(let ftp): label = "ftp \(ftp.host):\(ftp.port)"
            }
            let prefix = specs.count > 1 ? "[\(label)] " : ""
            let report: @Sendable (TetherEvent) -> Void = { event in
                switch event {
                case .spooled(let entry):
                    console.log(prefix + "spooled \(entry.cameraFileName) (\(ByteCountText.format(entry.bytes)))")
                case .skipped(let name, let reason):
                    statistics.update { $0.skipped += 1 }
                    console.log(prefix + "skipped \(name): \(reason)")
                case .waitingForRoom:
                    console.log(prefix + "spool full: waiting for uploads before taking more photos")
                case .problem(let message), .info(let message):
                    console.log(prefix + message)
                case .status(let status):
                    statistics.setSourceStatus(status, for: label)
                case .unusable(let message):
                    failure.record(message)
                }
            }
            switch spec {
            case .folder(let folder, let settle):
                sources.append(try HotFolderSource(options: .init(folder: folder, settleSeconds: settle), spool: spool,
                                                   home: home, report: report))
            case .camera(let camera):
                sources.append(try CameraSource(options: camera, spool: spool, home: home, report: report))
            case .gphoto2(let camera):
                sources.append(try GPhoto2Source(options: camera, spool: spool, home: home, report: report))
            case .ftp(let ftp):
                sources.append(try FTPSource(options: ftp, spool: spool, home: home, report: report))
            }
        }
        return sources
    }

    /// Runs until `stop` is set (by SIGINT/SIGTERM), then shuts down as described above.
    /// `abort` cuts the grace period short (a second Ctrl-C). A source that cannot be used at all
    /// (`TetherEvent.unusable`) ends the run the same way, which then throws its message.
    public func run(stop: StopFlag, abort: StopFlag = StopFlag()) throws(RunError) {
        let resumed = spool.counts()
        console.log("relay: \(sources.map(\.label).joined(separator: ", ")) → \(config.kind == .http ? config.verb.rawValue + " " : "")\(config.url) (config \(config.label)), "
            + "\(options.workers) workers" + (config.renditionSpec.map { ", sending renditions of \($0.summary)" } ?? "")
            + otherConfigs.map { " + \($0.kind == .http ? $0.verb.rawValue + " " : "")\($0.url) (config \($0.label)\($0.priority == .low ? ", low priority" : ""))" }.joined()
            + (resumed.queued > 0 ? ", \(resumed.queued) photos resumed from the spool" : ""))
        if !spool.problems.isEmpty {
            for problem in spool.problems { console.log("spool: \(problem)") }
        }
        let context = UploadWorker.Context(
            spool: spool, config: config, environment: environment, history: history, statistics: statistics,
            policy: options.policy, console: console, cancellation: cancellation,
            gate: GalleryGate(backoff: options.policy.backoff, console: console) { [spool] in spool.setPrimaryReachable($0) },
            onSettled: options.onUploadSettled, session: session)
        var workers: [any Runnable] = []
        for _ in 0..<max(1, options.workers) {
            do { workers.append(try UploadWorker(context: context)) } catch { throw .uploader(error) }
        }
        for other in otherConfigs {
            let otherContext = DestinationWorker.Context(
                spool: spool, config: other, environment: environment, history: history, statistics: statistics,
                policy: options.policy, console: console, cancellation: cancellation,
                gate: GalleryGate(backoff: options.policy.backoff, console: console, name: "destination '\(other.label)'"),
                onSettled: nil, session: session)
            for _ in 0..<max(1, options.workers) {
                do { workers.append(try DestinationWorker(context: otherContext)) } catch { throw .uploader(error) }
            }
        }
        if let spec = config.renditionSpec {
            let stage = RenditionStage(spool: spool, spec: spec, console: console)
            Thread.detachNewThread { stage.run() }
        }
        let workersDone = DispatchGroup()
        for worker in workers {
            workersDone.enter()
            Thread.detachNewThread {
                worker.run()
                workersDone.leave()
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

        while !stop.sleep(0.5) && sourceFailure.message == nil { showProgress() }

        console.log("stopping: no new photos; waiting up to \(Int(options.graceSeconds))s for uploads in flight")
        sourceStop.stop()
        spool.close()
        let deadline = Date().addingTimeInterval(options.graceSeconds)
        while workersDone.wait(timeout: .now() + 0.2) == .timedOut {
            if Date() >= deadline || abort.isStopped {
                cancellation.cancel()
                _ = workersDone.wait(timeout: .now() + 15)
                break
            }
            showProgress()
        }
        _ = sourceDone.wait(timeout: .now() + 15)
        console.finishProgress()
        let counts = spool.counts()
        let s = statistics.snapshot()
        console.log("stopped: \(s.delivered) uploaded, \(s.failed) failed this run; "
            + "\(counts.queued + counts.inFlight) left in the spool (sent on the next run)"
            + (counts.failed > 0 ? ", \(counts.failed) in spool/failed (relay status)" : ""))
        if let message = sourceFailure.message { throw .source(message) }
        if let session {
            if counts.queued + counts.inFlight + counts.failed == 0 && !cancellation.isCancelled {
                SessionCompletion.announce(session, configs: [config] + otherConfigs, environment: environment,
                                           policy: options.policy, cancellation: UploadCancellation(), console: console)
            } else {
                console.log("session \(session.name): not complete (photos are left in the spool); its manifest is sent by "
                    + "the run with --session \(session.name) that delivers them")
            }
        }
    }

    private func showProgress() {
        let counts = spool.counts()
        var s = statistics.snapshot()
        s.queued = counts.queued
        s.spoolFull = spool.isFull
        if let extra = options.statusLine?() { s.sourceStatus.insert(extra, at: 0) }
        console.progress(ProgressLine.format(s))
    }
}
