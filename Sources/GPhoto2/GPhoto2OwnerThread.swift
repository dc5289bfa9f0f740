import Foundation

/// The one thread that makes every libgphoto2 call for one camera: libgphoto2 keeps per-camera
/// state (the PTP transaction id, the filesystem cache) without locks, so two threads calling
/// into one camera corrupt it. Callers hand it a job and wait for the job's value.
///
/// `@unchecked Sendable`: `jobs` and `finished` are guarded by `condition`.
final class GPhoto2OwnerThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var finished = false

    /// Starts the thread; `name` shows in debuggers and `top -H` (at most 15 bytes reach Linux).
    init(name: String) {
        Thread.detachNewThread { [self] in
            Thread.current.name = name
            loop()
        }
    }

    /// Runs `job` on the owner thread and returns what it returned or threw; once the thread
    /// has finished, throws without running it.
    func perform<T>(_ job: @escaping () throws(GPhoto2Error) -> T) throws(GPhoto2Error) -> T {
        let box = OutcomeBox<T>()
        let work = UncheckedJob(run: job)
        let done = NSCondition()
        let queued = enqueue {
            let outcome: Result<T, GPhoto2Error>
            do throws(GPhoto2Error) { outcome = .success(try work.run()) } catch { outcome = .failure(error) }
            done.withLock {
                box.outcome = outcome
                done.signal()
            }
        }
        guard queued else {
            throw GPhoto2Error(code: GPhoto2Result.generic, operation: "use the camera", detail: "relay closed it already")
        }
        done.lock()
        while box.outcome == nil { done.wait() }
        done.unlock()
        return try box.outcome!.get()
    }

    /// Ends the thread once the jobs queued so far have run.
    func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    /// Queues `job`; false when the thread has finished (or is finishing) and will not run it.
    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard !finished else { return false }
            jobs.append(job)
            condition.signal()
            return true
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// A job's closure carried to the owner thread; the caller waits until it has run, so nothing
/// it captured is used by two threads at once.
///
/// `@unchecked Sendable`: `run` is immutable and called once, on the owner thread, while `perform`'s caller waits for it.
private struct UncheckedJob<T>: @unchecked Sendable {
    let run: () throws(GPhoto2Error) -> T
}

/// A job's outcome, written on the owner thread and read by the waiting caller under `done`.
///
/// `@unchecked Sendable`: `outcome` is set once under `done`; the caller reads it only after seeing it set under `done`.
private final class OutcomeBox<T>: @unchecked Sendable {
    var outcome: Result<T, GPhoto2Error>?
}
