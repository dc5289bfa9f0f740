import Foundation
import RelayCore
import Spool
import Tether
import Uploader

/// `relay run`: one photo source feeding the spool, N upload workers draining it, until stopped.
///
/// Threads, not tasks: the workers block in libcurl and the source blocks on the spool when it is
/// full, and neither may starve the other on a 2-core box. Shutdown: the source stops taking
/// photos, the spool stops handing out work, in-flight uploads get `graceSeconds` to finish and
/// are then aborted; whatever is left stays in the spool for the next run.
public final class RelayRun {
    public struct Options: Sendable {
        public var folder: URL
        public var configQuery: String?
        public var workers: Int
        public var limits: SpoolLimits
        public var settleSeconds: TimeInterval
        public var graceSeconds: TimeInterval
        public var policy: DeliveryPolicy

        public init(
            folder: URL, configQuery: String? = nil, workers: Int = 2, limits: SpoolLimits = SpoolLimits(),
            settleSeconds: TimeInterval = 1, graceSeconds: TimeInterval = 15, policy: DeliveryPolicy = DeliveryPolicy()
        ) {
            self.folder = folder
            self.configQuery = configQuery
            self.workers = workers
            self.limits = limits
            self.settleSeconds = settleSeconds
            self.graceSeconds = graceSeconds
            self.policy = policy
        }
    }

    public let options: Options
    public let config: RequestConfig
    private let spool: Spool
    private let history: HistoryStore
    private let source: HotFolderSource
    private let statistics = RunStatistics()
    private let console: RunConsole
    private let cancellation = UploadCancellation()
    private let environment: [String: String]

    /// Checks everything that can be wrong before the first photo moves: the config (and its
    /// `${VAR}` references), the state files, the spool lock and the folder.
    public init(home: RelayHome, options: Options, environment: [String: String], console: RunConsole) throws(RunError) {
        self.options = options
        self.environment = environment
        self.console = console
        if let problem = HotFolderSource.validate(options.folder, home: home) { throw .source(problem) }
        do {
            try home.createIfNeeded()
            config = try ConfigStore(home: home).resolve(options.configQuery)
            history = try HistoryStore(home: home)
        } catch let error as ConfigError {
            throw .config(error)
        } catch let error as StateFileError {
            throw .state(error)
        } catch {
            throw .source("\(error)")
        }
        do {
            try config.validate()
            for (name, value) in config.headers {
                _ = try EnvironmentExpansion.expand(value, header: name, environment: environment)
            }
        } catch {
            throw .config(error)
        }
        do {
            spool = try Spool(directory: home.spoolDirectory, limits: options.limits)
        } catch {
            throw .spool(error)
        }
        let statistics = self.statistics
        let console = self.console
        do {
            source = try HotFolderSource(
                options: .init(folder: options.folder, settleSeconds: options.settleSeconds), spool: spool, home: home
            ) { event in
                switch event {
                case .spooled(let entry):
                    console.log("spooled \(entry.cameraFileName) (\(ByteCountText.format(entry.bytes)))")
                case .skipped(let name, let reason):
                    statistics.update { $0.skipped += 1 }
                    console.log("skipped \(name): \(reason)")
                case .waitingForRoom:
                    console.log("spool full: waiting for uploads before taking more photos")
                case .problem(let message):
                    console.log(message)
                }
            }
        } catch {
            throw .state(error)
        }
    }

    /// Runs until `stop` is set (by SIGINT/SIGTERM), then shuts down as described above.
    /// `abort` cuts the grace period short (a second Ctrl-C).
    public func run(stop: StopFlag, abort: StopFlag = StopFlag()) throws(RunError) {
        let resumed = spool.counts()
        console.log("relay: \(options.folder.path) → \(config.verb.rawValue) \(config.url) (config \(config.label)), "
            + "\(options.workers) workers" + (resumed.queued > 0 ? ", \(resumed.queued) photos resumed from the spool" : ""))
        if !spool.problems.isEmpty {
            for problem in spool.problems { console.log("spool: \(problem)") }
        }
        let context = UploadWorker.Context(
            spool: spool, config: config, environment: environment, history: history, statistics: statistics,
            policy: options.policy, console: console, cancellation: cancellation)
        var workers: [UploadWorker] = []
        for _ in 0..<max(1, options.workers) {
            do { workers.append(try UploadWorker(context: context)) } catch { throw .uploader(error) }
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
        sourceDone.enter()
        let source = self.source
        Thread.detachNewThread {
            source.run(until: sourceStop)
            sourceDone.leave()
        }

        while !stop.sleep(0.5) { showProgress() }

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
    }

    private func showProgress() {
        let counts = spool.counts()
        var s = statistics.snapshot()
        s.queued = counts.queued
        s.spoolFull = spool.isFull
        console.progress(ProgressLine.format(s))
    }
}
