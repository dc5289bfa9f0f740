#if os(Linux)
    import Glibc

    /// The events an inotify descriptor has queued, read and cut apart: each names the watch it
    /// came from, what happened and the file's name in the watched folder ("" for the folder).
    public enum InotifyEvents {
        public struct Event: Sendable {
            public var watch: Int32
            public var mask: UInt32
            public var name: String
        }

        /// Reads every event queued on the non-blocking `descriptor` and hands each to `body`.
        public static func read(_ descriptor: Int32, _ body: (Event) -> Void) {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                parse(buffer[..<count], body)
            }
        }

        /// The events in `bytes` as the kernel lays them out: a fixed `inotify_event` header, then
        /// its name padded with NULs to the length the header gives.
        static func parse(_ bytes: ArraySlice<UInt8>, _ body: (Event) -> Void) {
            let header = MemoryLayout<inotify_event>.size
            var offset = bytes.startIndex
            while offset + header <= bytes.endIndex {
                let (watch, mask, length) = bytes.withUnsafeBytes { raw in
                    let at = offset - bytes.startIndex
                    return (
                        raw.load(fromByteOffset: at, as: Int32.self), raw.load(fromByteOffset: at + 4, as: UInt32.self),
                        Int(raw.load(fromByteOffset: at + 12, as: UInt32.self))
                    )
                }
                let name = bytes[(offset + header)..<min(bytes.endIndex, offset + header + length)]
                offset += header + length
                body(Event(watch: watch, mask: mask, name: String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)))
            }
        }
    }
#endif
