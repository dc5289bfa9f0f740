/// Canon EOS GetObjectInfoEx (0x9109, parameters storage, folder handle, 0x100000): a folder's
/// files, each with a flags byte whose bit 0x01 says the file is protected. Layout from
/// libgphoto2 `ptp-pack.c` (`ptp_unpack_Canon_EOS_FE`, the `PTP_cefe_*` offsets) and `ptp.c`
/// (`ptp_canon_eos_getobjectinfoex`): a u32 count, then per file a u32 size and, from there,
/// handle @0, storage @4, format @8, flags @16, size @20, name @32 (NUL-ended), time @48.
public struct CanonFolderEntry: Equatable, Sendable {
    public var handle: UInt32
    public var storageID: UInt32
    public var format: UInt16
    public var flags: UInt8
    public var size: UInt32
    public var name: String

    public init(handle: UInt32, storageID: UInt32, format: UInt16, flags: UInt8, size: UInt32, name: String) {
        self.handle = handle
        self.storageID = storageID
        self.format = format
        self.flags = flags
        self.size = size
        self.name = name
    }

    /// Bit 0x01 of the flags (libgphoto2 lists such a file read-only).
    public var isProtected: Bool { flags & 0x01 != 0 }

    /// Bytes of one entry after its size field, as libgphoto2 reads them (`PTP_cefe_Time` + 4).
    static let dataLength = 52

    /// The entries of a reply, as far as they are whole; an entry shorter than its fields ends
    /// the reading.
    public static func parse(_ data: [UInt8]) -> [CanonFolderEntry] {
        func u32(_ at: Int) -> UInt32 {
            UInt32(data[at]) | UInt32(data[at + 1]) << 8 | UInt32(data[at + 2]) << 16 | UInt32(data[at + 3]) << 24
        }
        guard data.count >= 4 else { return [] }
        let count = Int(u32(0))
        var entries: [CanonFolderEntry] = []
        var at = 4
        while entries.count < count, at + 4 <= data.count {
            let size = Int(u32(at))
            guard size >= 4 + dataLength, at + size <= data.count else { break }
            let base = at + 4
            let nameBytes = data[(base + 32)..<(base + 48)].prefix { $0 != 0 }
            entries.append(
                CanonFolderEntry(
                    handle: u32(base), storageID: u32(base + 4), format: UInt16(data[base + 8]) | UInt16(data[base + 9]) << 8,
                    flags: data[base + 16], size: u32(base + 20), name: String(decoding: nameBytes, as: UTF8.self)))
            at += size
        }
        return entries
    }

    /// A reply holding `entries`, as a body answers (for the simulator).
    public static func encode(_ entries: [CanonFolderEntry]) -> [UInt8] {
        var writer = PTPDataWriter(capacity: 4 + entries.count * (4 + dataLength))
        writer.appendU32(UInt32(entries.count))
        for entry in entries {
            writer.appendU32(UInt32(4 + dataLength))
            writer.appendU32(entry.handle)  // @0
            writer.appendU32(entry.storageID)  // @4
            writer.appendU32(UInt32(entry.format))  // @8
            writer.appendU32(0)  // @12
            writer.appendU32(UInt32(entry.flags))  // @16
            writer.appendU32(entry.size)  // @20
            writer.appendZeros(8)  // @24
            let name = Array(entry.name.utf8.prefix(15))
            writer.appendBytes(name)  // @32
            writer.appendZeros(16 - name.count)
            writer.appendU32(0)  // @48: time
        }
        return writer.bytes
    }
}
