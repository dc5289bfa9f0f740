import Foundation

/// A folder on `scripts/powerloss_fs.py`, the FUSE file system that models a power cut: what was
/// not synced (file data, and names whose folder was not synced) is dropped by ``cut(faults:)``.
/// For the tests that must see what a power cut leaves, which a SIGKILL cannot show (the page
/// cache outlives the process).
public final class PowerLossMount {
    /// The mounted folder.
    public let mount: URL
    private let state: URL
    private var child: Subprocess

    public enum Failure: Error, CustomStringConvertible {
        case notMounted(String)
        public var description: String {
            switch self {
            case .notMounted(let why): "powerloss_fs did not mount: \(why)"
            }
        }
    }

    /// Mounts a new, empty file system in `root`/mnt. `faults`: powerloss_fs's fault flags
    /// (`--fail-fsyncdir GLOB`, `--fail-fsync GLOB`).
    public init(in root: URL, faults: [String] = []) throws {
        mount = root.appendingPathComponent("mnt", isDirectory: true)
        state = root.appendingPathComponent("powerloss-state", isDirectory: true)
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        child = try Self.start(mount: mount, state: state, faults: faults)
    }

    deinit {
        _ = child.stop(signal: SIGKILL, timeout: 5)
        Self.unmount(mount)
    }

    /// A power cut (call it once the program using the folder was killed): every write that was
    /// not made durable is gone, and the folder is mounted again, with `faults` from then on.
    public func cut(faults: [String] = []) throws {
        _ = child.stop(signal: SIGKILL, timeout: 5)
        Self.unmount(mount)
        child = try Self.start(mount: mount, state: state, faults: faults)
    }

    private static func start(mount: URL, state: URL, faults: [String]) throws -> Subprocess {
        guard let python = Subprocess.which("python3") else { throw Failure.notMounted("python3 is missing") }
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/powerloss_fs.py").path
        let child = try Subprocess(python, [script, mount.path, "--state", state.path] + faults)
        let mounted = Subprocess.waitUntil(timeout: 30) { child.stdout.contains("powerloss_fs: mounted") || !child.isRunning }
        guard mounted, child.isRunning else {
            throw Failure.notMounted(child.stdout + child.stderr + " (scripts/install-deps.sh test installs fusepy and FUSE)")
        }
        return child
    }

    private static func unmount(_ mount: URL) {
        guard let fusermount = Subprocess.which("fusermount") ?? Subprocess.which("fusermount3") else { return }
        _ = try? Subprocess.run(fusermount, ["-u", "-z", mount.path], timeout: 30)
    }
}
