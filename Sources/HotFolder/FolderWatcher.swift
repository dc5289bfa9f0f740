import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#endif

/// Tells the hot folder, as it happens, which files a writer has just closed or which were
/// renamed into the folder (inotify IN_CLOSE_WRITE and IN_MOVED_TO): such a file is complete, so
/// it is taken at once instead of after the settle time. Sub-folders are watched too, including
/// ones created later. Where inotify does not exist (macOS), `make` returns nil and the folder is
/// polled with the settle rule alone.
final class FolderWatcher {
    #if os(Linux)
        private let descriptor: Int32
        /// Wakes ``changes(timeout:)`` from another thread (a stop).
        let wakePipe: WakePipe
        private let root: String
        /// Watch descriptor → folder path relative to the root ("" for the root).
        private var folders: [Int32: String] = [:]

        private static let fileMask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)
        private static let folderMask = fileMask | UInt32(IN_CREATE) | UInt32(IN_ONLYDIR)

        static func make(folder: URL) -> FolderWatcher? {
            let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            guard let wakePipe = try? WakePipe() else {
                close(descriptor)
                return nil
            }
            let watcher = FolderWatcher(descriptor: descriptor, wakePipe: wakePipe, root: folder.path)
            guard watcher.watch(relative: "") else { return nil }
            if let walker = FileManager.default.enumerator(atPath: folder.path) {
                while let relative = walker.nextObject() as? String {
                    if (relative as NSString).lastPathComponent.hasPrefix(".") {
                        walker.skipDescendants()
                    } else if walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory {
                        _ = watcher.watch(relative: relative)
                    }
                }
            }
            return watcher
        }

        private init(descriptor: Int32, wakePipe: WakePipe, root: String) {
            self.descriptor = descriptor
            self.wakePipe = wakePipe
            self.root = root
        }

        deinit {
            close(descriptor)
        }

        private func watch(relative: String) -> Bool {
            let path = relative.isEmpty ? root : root + "/" + relative
            let wd = inotify_add_watch(descriptor, path, Self.folderMask)
            guard wd >= 0 else { return false }
            folders[wd] = relative
            return true
        }

        /// Waits up to `timeout` seconds (nil: until something happens) for the folder to change or
        /// a ``wakePipe`` wake; returns the relative paths of files closed after writing or moved
        /// in meanwhile, and whether anything happened at all (a file created, a folder added, the
        /// kernel's queue overflowed).
        func changes(timeout: TimeInterval?) -> (completed: [String], changed: Bool) {
            var pollers = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            let milliseconds = timeout.map { Int32(min(max(0, $0) * 1000, Double(Int32.max))) } ?? -1
            guard poll(&pollers, 2, milliseconds) > 0 else { return ([], false) }
            if pollers[1].revents != 0 { wakePipe.drain() }
            guard pollers[0].revents != 0 else { return ([], false) }
            var completed: [String] = []
            var changed = false
            InotifyEvents.read(descriptor) { event in
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { changed = true }
                guard let folder = folders[event.watch], !event.name.isEmpty, !event.name.hasPrefix(".") else { return }
                changed = true
                let relative = folder.isEmpty ? event.name : folder + "/" + event.name
                if event.mask & UInt32(IN_ISDIR) != 0 {
                    if event.mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 { _ = watch(relative: relative) }
                } else if event.mask & Self.fileMask != 0 {
                    completed.append(relative)
                }
            }
            return (completed, changed)
        }

        /// Whether writers on other machines change the folder unseen: on NFS, SMB, CIFS, FUSE
        /// (sshfs) and 9p mounts inotify hears only this machine's writes.
        static func missesRemoteWrites(_ folder: URL) -> Bool {
            guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return true }
            // The mount the folder is on: the longest mount point it lies under.
            var mount = (point: "", type: "")
            for line in mounts.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count >= 3 else { continue }
                let point = fields[1].replacingOccurrences(of: "\\040", with: " ")
                let under = folder.path == point || folder.path.hasPrefix(point.hasSuffix("/") ? point : point + "/")
                if under && point.count >= mount.point.count { mount = (point, String(fields[2])) }
            }
            return ["nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph"].contains(mount.type) || mount.type.hasPrefix("fuse")
        }
    #else
        static func make(folder: URL) -> FolderWatcher? { nil }

        var wakePipe: WakePipe { preconditionFailure("there is no watcher without inotify") }

        func changes(timeout: TimeInterval?) -> (completed: [String], changed: Bool) { ([], false) }

        static func missesRemoteWrites(_ folder: URL) -> Bool { true }
    #endif
}
