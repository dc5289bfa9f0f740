/// Builds small EXIF TIFF structures for the tests: IFD0 with the given entries, and the
/// sub-directories they point to, in either byte order.
struct TIFFBuilder {
    var bigEndian: Bool
    private(set) var bytes: [UInt8] = []

    init(bigEndian: Bool) {
        self.bigEndian = bigEndian
        bytes = bigEndian ? [0x4D, 0x4D, 0, 42, 0, 0, 0, 8] : [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    }

    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// The value field's 4 bytes (already in the file's byte order), or data stored elsewhere.
        var inline: [UInt8]?
        var data: [UInt8]?
    }

    func u16(_ value: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    func u32(_ value: UInt32) -> [UInt8] {
        bigEndian ? u16(UInt16(value >> 16)) + u16(UInt16(value & 0xFFFF)) : u16(UInt16(value & 0xFFFF)) + u16(UInt16(value >> 16))
    }

    func short(_ tag: UInt16, _ value: UInt16) -> Entry {
        Entry(tag: tag, type: 3, count: 1, inline: u16(value) + [0, 0])
    }

    func long(_ tag: UInt16, _ value: UInt32) -> Entry {
        Entry(tag: tag, type: 4, count: 1, inline: u32(value))
    }

    func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let data = Array(text.utf8) + [0]
        return Entry(
            tag: tag, type: 2, count: UInt32(data.count),
            inline: data.count <= 4 ? data + [UInt8](repeating: 0, count: 4 - data.count) : nil,
            data: data.count > 4 ? data : nil)
    }

    func rationals(_ tag: UInt16, _ values: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: UInt32(values.count), data: values.flatMap { u32($0.0) + u32($0.1) })
    }

    /// Appends a directory at the end; returns its offset. `next` is the next-IFD link.
    mutating func directory(_ entries: [Entry], next: UInt32 = 0) -> Int {
        let offset = bytes.count
        let dataStart = offset + 2 + 12 * entries.count + 4
        var data: [UInt8] = []
        var table: [UInt8] = u16(UInt16(entries.count))
        for entry in entries {
            table += u16(entry.tag) + u16(entry.type) + u32(entry.count)
            if let inline = entry.inline {
                table += inline
            } else {
                table += u32(UInt32(dataStart + data.count))
                data += entry.data ?? []
            }
        }
        table += u32(next)
        bytes += table + data
        return offset
    }

    /// Points the entry with `tag` (in the directory at `directory`) at `target`.
    mutating func link(directory: Int, tag: UInt16, to target: Int) {
        let count =
            bigEndian ? Int(bytes[directory]) << 8 | Int(bytes[directory + 1]) : Int(bytes[directory + 1]) << 8 | Int(bytes[directory])
        for i in 0..<count {
            let at = directory + 2 + 12 * i
            let found = bigEndian ? UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) : UInt16(bytes[at + 1]) << 8 | UInt16(bytes[at])
            if found == tag { bytes.replaceSubrange((at + 8)..<(at + 12), with: u32(UInt32(target))) }
        }
    }
}
