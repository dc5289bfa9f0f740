import Foundation
import RelayCore

/// The one thread that makes every libgphoto2 call for one camera: libgphoto2 keeps per-camera
/// state (the PTP transaction id, the filesystem cache) without locks, so two threads calling
/// into one camera corrupt it. Callers hand it a job and wait for the job's value.
final class GPhoto2OwnerThread: Sendable {
    /// The jobs not run yet, and whether the thread is to end once they have run.
    private struct Queue: Sendable {
        var jobs: [@Sendable () -> Void] = []
        var finished = false
    }

    private let queue = LockedBox(Queue())

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
        let done = UncheckedOutcome<T>()
        let work = UncheckedJob(run: job)
        let queued = enqueue {
            let outcome: Result<T, GPhoto2Error>
            do throws(GPhoto2Error) { outcome = .success(try work.run()) } catch { outcome = .failure(error) }
            done.outcome.change { $0 = outcome }
        }
        guard queued else {
            throw GPhoto2Error(code: GPhoto2Result.generic, operation: "use the camera", detail: "relay closed it already")
        }
        let result = done.outcome.wait { (outcome: inout Result<T, GPhoto2Error>?) -> LockedWait<Result<T, GPhoto2Error>> in
            if let set = outcome { return .ready(set) }
            return .until(nil)
        }
        return try result.get()
    }

    /// Ends the thread once the jobs queued so far have run.
    func finish() {
        queue.change { $0.finished = true }
    }

    /// Queues `job`; false when the thread has finished (or is finishing) and will not run it.
    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        queue.change { queue in
            guard !queue.finished else { return false }
            queue.jobs.append(job)
            return true
        }
    }

    private func loop() {
        while let job = nextJob() { job() }
    }

    /// The next job, waiting for one; nil once the thread is finished and every job has run.
    private func nextJob() -> (@Sendable () -> Void)? {
        queue.wait { queue -> LockedWait<(@Sendable () -> Void)?> in
            if !queue.jobs.isEmpty { return .ready(queue.jobs.removeFirst()) }
            return queue.finished ? .ready(nil) : .until(nil)
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

/// A job's outcome, set on the owner thread (a change) and waited for by the caller.
///
/// `@unchecked Sendable`: `outcome` is a box (not Sendable when `T` is not), set once by the owner thread and read by
/// the caller once set: the value passes from one thread to the other, never used by both.
private struct UncheckedOutcome<T>: @unchecked Sendable {
    let outcome = LockedBox<Result<T, GPhoto2Error>?>(nil)
}
