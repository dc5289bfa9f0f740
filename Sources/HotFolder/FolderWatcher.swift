import Foundation

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
        private let root: String
        /// Watch descriptor → folder path relative to the root ("" for the root).
        private var folders: [Int32: String] = [:]
        private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

        private static let fileMask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)
        private static let folderMask = fileMask | UInt32(IN_CREATE) | UInt32(IN_ONLYDIR)

        static func make(folder: URL) -> FolderWatcher? {
            let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return nil }
            let watcher = FolderWatcher(descriptor: descriptor, root: folder.path)
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

        private init(descriptor: Int32, root: String) {
            self.descriptor = descriptor
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

        /// Waits up to `timeout` seconds; returns the relative paths of files closed after writing or
        /// moved in meanwhile (empty on timeout).
        func completedFiles(timeout: TimeInterval) -> [String] {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(0, timeout) * 1000)) > 0 else { return [] }
            var completed: [String] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                        (
                            raw.load(fromByteOffset: offset, as: Int32.self),
                            raw.load(fromByteOffset: offset + 4, as: UInt32.self),
                            Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                        )
                    }
                    let nameBytes = buffer[(offset + header)..<min(count, offset + header + length)]
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    offset += header + length
                    guard let folder = folders[wd], !name.isEmpty, !name.hasPrefix(".") else { continue }
                    let relative = folder.isEmpty ? name : folder + "/" + name
                    if mask & UInt32(IN_ISDIR) != 0 {
                        if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 { _ = watch(relative: relative) }
                    } else if mask & Self.fileMask != 0 {
                        completed.append(relative)
                    }
                }
            }
            return completed
        }
    #else
        static func make(folder: URL) -> FolderWatcher? { nil }

        func completedFiles(timeout: TimeInterval) -> [String] { [] }
    #endif
}
