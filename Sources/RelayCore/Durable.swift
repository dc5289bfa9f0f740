import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one rule for making relay's state survive a power cut, as PostgreSQL (`durable_rename`,
/// `fsync_parent_path`) and SQLite write it: a file's bytes are durable once the file is synced,
/// and its *name* once the folder holding the name is synced. So every folder relay makes is
/// synced into its parent, and every create, rename and removal that matters is followed by a
/// sync of the folder (both folders for a move). A folder sync that fails is an error like a
/// failed file sync, never ignored: the kernel may have dropped the entry it was to write.
///
/// On Darwin `fsync` only hands the data to the drive, whose cache a power cut empties:
/// `F_FULLFSYNC` asks the drive to flush (SQLite's `fullfsync`); where the file system refuses
/// it, `fsync` is the fallback.
public enum Durable {
    /// Flushes the file behind `fd` to stable storage.
    public static func sync(_ fd: Int32) throws(Errno) {
        #if canImport(Darwin)
            if fcntl(fd, F_FULLFSYNC) == 0 { return }
        #endif
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw Errno.current("fsync")
        }
    }

    /// Flushes the entries of the folder at `path` (the names created, renamed or removed in it).
    public static func syncFolder(_ path: String) throws(Errno) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno.current("open folder \(path)") }
        defer { close(fd) }
        do {
            try sync(fd)
        } catch {
            throw Errno(call: "fsync folder \(path)", code: error.code)
        }
    }

    /// Makes the folder at `url` and any missing parents (each with `mode`), each synced into its
    /// parent before the next is made inside it. A folder that exists is left as it is. Returns
    /// whether anything was made.
    @discardableResult
    public static func makeFolder(_ url: URL, mode: mode_t = 0o700) throws(Errno) -> Bool {
        let path = url.standardizedFileURL.path
        var missing: [String] = []
        var current = path
        while !current.isEmpty && current != "/" {
            var info = stat()
            if stat(current, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else { throw Errno(call: "mkdir \(current)", code: ENOTDIR) }
                break
            }
            guard errno == ENOENT else { throw Errno.current("stat \(current)") }
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for folder in missing.reversed() {
            if mkdir(folder, mode) != 0 {
                guard errno == EEXIST else { throw Errno.current("mkdir \(folder)") }
                continue
            }
            // mkdir's mode is masked by the umask; the folder gets exactly `mode`.
            chmod(folder, mode)
            try syncFolder((folder as NSString).deletingLastPathComponent)
        }
        return !missing.isEmpty
    }

    /// Renames `source` to `target` (replacing it atomically) and syncs the folder of each, so
    /// that after a cut the file is under one of its two names, never under none.
    /// `syncingSource` false: only the target's folder is synced, where a name that comes back in
    /// the source folder after a cut does no harm (a scratch folder emptied at every start).
    public static func rename(_ source: String, to target: String, syncingSource: Bool = true) throws(Errno) {
        guard Foundation.rename(source, target) == 0 else { throw Errno.current("rename") }
        let targetFolder = (target as NSString).deletingLastPathComponent
        let sourceFolder = (source as NSString).deletingLastPathComponent
        try syncFolder(targetFolder)
        if syncingSource && sourceFolder != targetFolder { try syncFolder(sourceFolder) }
    }

    /// Removes the file at `path` (one already gone is fine) and syncs its folder, so that it
    /// does not come back after a cut.
    public static func remove(_ path: String) throws(Errno) {
        if unlink(path) != 0 && errno != ENOENT { throw Errno.current("unlink") }
        try syncFolder((path as NSString).deletingLastPathComponent)
    }

    /// Opens the file at `path` with `flags` (which include `O_CREAT`), and when this call made
    /// it, syncs its folder before returning: a file whose name must outlive a cut (a log that is
    /// appended to and synced line by line) is durable from its first line.
    public static func openCreating(_ path: String, flags: Int32, mode: mode_t = 0o600) throws(Errno) -> Int32 {
        var fd = open(path, flags | O_EXCL | O_CLOEXEC, mode)
        if fd >= 0 {
            do {
                try syncFolder((path as NSString).deletingLastPathComponent)
            } catch {
                close(fd)
                throw error
            }
            return fd
        }
        guard errno == EEXIST else { throw Errno.current("open \(path)") }
        fd = open(path, flags & ~O_CREAT | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Errno.current("open \(path)") }
        return fd
    }

    /// Appends whole lines to the log open as `fd` and syncs it before returning; on failure the
    /// log is cut back to where it ended, so that no half line stays and the next append starts
    /// on a clean one. `data` starts after a line break: `lineBreakFirst` adds one when the log's
    /// last byte is not one (a line a crash cut short). Returns where the log now ends.
    @discardableResult
    public static func appendLines(_ data: Data, to fd: Int32, lineBreakFirst: Bool = false) throws(Errno) -> UInt64 {
        let end = lseek(fd, 0, SEEK_END)
        var last: UInt8 = 0x0A
        if lineBreakFirst, end > 0 { _ = pread(fd, &last, 1, end - 1) }
        do throws(Errno) {
            let lines = last == 0x0A ? data : Data([0x0A]) + data
            try AtomicFile.writeAll(fd, lines)
            try sync(fd)
            return UInt64(max(0, end)) + UInt64(lines.count)
        } catch {
            if end >= 0 { _ = ftruncate(fd, end) }
            throw error
        }
    }
}
