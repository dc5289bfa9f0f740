// Canon EOS GetEvent (0x9116) data: a list of `{u32 size, u32 type, payload}` records ended by
// the terminator `{8, 0}`. This file decodes it for the tether and encodes it for the simulator.

/// Record type codes seen in Canon EOS GetEvent data.
public enum CanonEOSEventType {
    public static let terminator: UInt32 = 0
    /// A new file on the card: handle @8, storage @12, format u16 @16, size @28, parent @32, name @40.
    public static let objectAddedEx: UInt32 = 0xC181
    /// Like `objectAddedEx` with a 64-bit size: size @28 (low 32 bits), parent @36, name @44
    /// (the 64-bit layout is unconfirmed on real bodies).
    public static let objectAddedEx64: UInt32 = 0xC1A7
    /// A capture kept in camera memory: handle @8, format @12, size @20, name @28.
    public static let requestObjectTransfer: UInt32 = 0xC186
    /// The 64-bit variant of `requestObjectTransfer`, same offsets.
    public static let requestObjectTransfer64: UInt32 = 0xC1A9
    /// Newer bodies over Wi-Fi (R5 Mark II): `objectAddedEx64`'s fixed fields, the file name moved
    /// to the end of the record as a length-prefixed UTF-16 string (libgphoto2 issue 1028). The
    /// exact position of the name is *unconfirmed*; the parser finds it by its length prefix.
    public static let objectAddedEx64LFN: UInt32 = 0xC1B6
    /// `objectInfoChangedEx`'s counterpart of `objectAddedEx64LFN`.
    public static let objectInfoChangedEx64LFN: UInt32 = 0xC1B7
    /// A capture in camera memory on newer bodies: handle @8, format @12, size @20 (64-bit),
    /// parent @29, no file name; at least 37 bytes (libgphoto2 ptp-pack.c, commit af0b35bb3).
    public static let requestObjectTransfer64LFN: UInt32 = 0xC1B8
    /// A file's info changed (protected on the body, among others): the ObjectAddedEx layout,
    /// handle @8 (libgphoto2 ptp-pack.c, `ptp_unpack_EOS_events`).
    public static let objectInfoChangedEx: UInt32 = 0xC187
    /// A file's content changed (newer firmware, when a shot is rated: the XMP in the file is
    /// rewritten; libgphoto2 PR 261): handle @8 only.
    public static let objectContentChanged: UInt32 = 0xC188
    /// `objectInfoChangedEx`'s counterpart of `objectAddedEx64` (libgphoto2 ptp.h).
    public static let objectInfoChangedEx64: UInt32 = 0xC1A8
    /// The body's Direct Transfer button on a photo of the card (libgphoto2 ptp.h names it
    /// RequestObjectTransferDT; its layout is not in libgphoto2, which does not parse it: only the
    /// handle @8, common to Canon's object records, is read).
    public static let requestObjectTransferDT: UInt32 = 0xC190
    /// The 64-bit form of `requestObjectTransferDT` (ptp.h RequestObjectTransferDT64).
    public static let requestObjectTransferDT64: UInt32 = 0xC1AA
    /// The records that name a card photo by its handle alone: a change, or the transfer button.
    static let handleRecords: Set<UInt32> = objectChanges.union([requestObjectTransferDT, requestObjectTransferDT64])
    /// The records that say a file on the card changed.
    public static let objectChanges: Set<UInt32> = [
        objectInfoChangedEx, objectContentChanged, objectInfoChangedEx64, objectInfoChangedEx64LFN,
    ]
    /// Property @8, value @12.
    public static let propValueChanged: UInt32 = 0xC189
    /// Property @8, then the allowed values.
    public static let availListChanged: UInt32 = 0xC18A
}

/// A new file announced in an EOS event record.
public struct CanonObjectAdded: Equatable, Sendable {
    /// The record type it came from (`CanonEOSEventType.objectAddedEx`, `...64`,
    /// `requestObjectTransfer` or `requestObjectTransfer64`); the encoder writes this layout.
    public var recordType: UInt32
    public var handle: UInt32
    /// 0 for RequestObjectTransfer records, which carry no storage id.
    public var storageID: UInt32
    public var format: PTPObjectFormat
    /// Low 32 bits of the file size.
    public var size: UInt32
    /// The folder's handle; 0 for RequestObjectTransfer records, which carry none.
    public var parent: UInt32
    /// Empty when the record carries no name (0xC1B8): relay names such a file itself.
    public var filename: String

    public init(
        recordType: UInt32 = CanonEOSEventType.objectAddedEx, handle: UInt32,
        storageID: UInt32 = 0, format: PTPObjectFormat, size: UInt32, parent: UInt32 = 0,
        filename: String
    ) {
        self.recordType = recordType
        self.handle = handle
        self.storageID = storageID
        self.format = format
        self.size = size
        self.parent = parent
        self.filename = filename
    }

    /// Whether the camera waits for TransferComplete (0x9117) after this file is downloaded.
    public var needsTransferComplete: Bool {
        recordType == CanonEOSEventType.requestObjectTransfer
            || recordType == CanonEOSEventType.requestObjectTransfer64
            || recordType == CanonEOSEventType.requestObjectTransfer64LFN
    }
}

/// One decoded EOS event record.
public enum CanonEOSEventRecord: Equatable, Sendable {
    /// 0xC181, 0xC1A7 or 0xC1B6 (see `CanonObjectAdded.recordType`).
    case objectAdded(CanonObjectAdded)
    /// 0xC186, 0xC1A9 or 0xC1B8: download it, then send TransferComplete(handle).
    case requestObjectTransfer(CanonObjectAdded)
    /// 0xC189. `raw` holds the bytes after the 32-bit value (longer values); usually empty.
    case propValueChanged(property: UInt32, value: UInt32, raw: [UInt8])
    /// 0xC18A: the values the property may take now (4 bytes each; empty when the record
    /// carries none).
    case availListChanged(property: UInt32, values: [UInt32])
    /// 0xC187, 0xC188, 0xC1A8 or 0xC1B7 (`type`): the file `handle` changed on the card;
    /// 0xC190 or 0xC1AA: the photographer pressed the transfer button on it.
    case objectChanged(type: UInt32, handle: UInt32)
    /// Any other record, or a known type too short for its layout, skipped by its size.
    case unknown(type: UInt32, size: UInt32)

    /// The record's type field.
    public var recordType: UInt32 {
        switch self {
        case .objectAdded(let object), .requestObjectTransfer(let object): return object.recordType
        case .propValueChanged: return CanonEOSEventType.propValueChanged
        case .availListChanged: return CanonEOSEventType.availListChanged
        case .objectChanged(let type, _): return type
        case .unknown(let type, _): return type
        }
    }
}

/// A decoded GetEvent reply.
public struct CanonEOSEventList: Equatable, Sendable {
    public var records: [CanonEOSEventRecord]
    /// Where the `{8, 0}` terminator starts; nil when the data ended on a record boundary without one.
    public var terminatorOffset: Int?
    /// Bytes after the terminator, which are not records and are ignored.
    public var ignoredTrailingByteCount: Int

    public init(records: [CanonEOSEventRecord], terminatorOffset: Int?, ignoredTrailingByteCount: Int = 0) {
        self.records = records
        self.terminatorOffset = terminatorOffset
        self.ignoredTrailingByteCount = ignoredTrailingByteCount
    }

    /// Every file announced, from object-added and request-transfer records, in order.
    public var newObjects: [CanonObjectAdded] {
        records.compactMap { record in
            switch record {
            case .objectAdded(let object), .requestObjectTransfer(let object): return object
            default: return nil
            }
        }
    }

    /// The files on the card said to have changed, each once, in order.
    public var changedObjects: [UInt32] { handles(of: CanonEOSEventType.objectChanges) }

    /// The files on the card the photographer sent with the Direct Transfer button, each once.
    public var transferButtonObjects: [UInt32] {
        handles(of: [CanonEOSEventType.requestObjectTransferDT, CanonEOSEventType.requestObjectTransferDT64])
    }

    private func handles(of types: Set<UInt32>) -> [UInt32] {
        var seen: Set<UInt32> = []
        return records.compactMap { record in
            guard case .objectChanged(let type, let handle) = record, types.contains(type), seen.insert(handle).inserted else { return nil }
            return handle
        }
    }

    /// The last value each property took in this reply (PropValueChanged records): where EOS
    /// bodies report their battery (0xD111) and the shots left on the card (0xD11B).
    public var propertyValues: [PTPDevicePropertyCode: UInt32] {
        var values: [PTPDevicePropertyCode: UInt32] = [:]
        for case .propValueChanged(let property, let value, _) in records where property <= 0xFFFF {
            values[PTPDevicePropertyCode(UInt16(property))] = value
        }
        return values
    }

    /// Whether the reply held no records (gphoto2 keeps polling until it sees this).
    public var isEmpty: Bool { records.isEmpty }

    /// Set by `parsePrefix` when a record was malformed: the records before it are kept, the rest
    /// of the reply is not read.
    public var malformation: PTPWireError?

    /// Parses GetEvent data strictly: a malformed record is an error.
    ///
    /// Every record must lie wholly inside `data` and have a size of at least 8; parsing stops at
    /// the terminator and ignores what follows. Data ending exactly after a record without a
    /// terminator is accepted (`terminatorOffset` nil); 1 to 7 stray bytes are `truncated`.
    public static func parse(_ data: [UInt8]) throws(PTPWireError) -> CanonEOSEventList {
        let list = parsePrefix(data)
        if let malformation = list.malformation { throw malformation }
        return list
    }

    /// Parses GetEvent data as far as it is well formed. Real bodies are sometimes sloppy: one bad
    /// record must cost that reply's remaining records, not the camera session.
    public static func parsePrefix(_ data: [UInt8]) -> CanonEOSEventList {
        var records: [CanonEOSEventRecord] = []
        var offset = 0
        func damaged(_ error: PTPWireError) -> CanonEOSEventList {
            var list = CanonEOSEventList(records: records, terminatorOffset: nil)
            list.malformation = error
            return list
        }
        while offset < data.count {
            let available = data.count - offset
            guard available >= 8 else { return damaged(.truncated(needed: 8, available: available)) }
            let size = readU32(data, offset)
            let type = readU32(data, offset + 4)
            guard size >= 8 else { return damaged(.recordTooSmall(offset: offset, size: size)) }
            guard UInt64(size) <= UInt64(available) else {
                return damaged(.recordOutOfBounds(offset: offset, size: size, available: available))
            }
            if size == 8 && type == CanonEOSEventType.terminator {
                return CanonEOSEventList(
                    records: records, terminatorOffset: offset,
                    ignoredTrailingByteCount: available - 8)
            }
            let record = data[offset..<offset + Int(size)]
            records.append(decodeRecord(type: type, size: size, record: record))
            offset += Int(size)
        }
        return CanonEOSEventList(records: records, terminatorOffset: nil)
    }

    /// Encodes records followed by the terminator, as a camera would answer GetEvent.
    public static func encode(_ records: [CanonEOSEventRecord]) -> [UInt8] {
        var writer = PTPDataWriter(capacity: 16 + records.count * 48)
        for record in records { encodeRecord(record, into: &writer) }
        writer.appendU32(8)
        writer.appendU32(CanonEOSEventType.terminator)
        return writer.bytes
    }

    // MARK: - Records

    private static func decodeRecord(type: UInt32, size: UInt32, record: ArraySlice<UInt8>) -> CanonEOSEventRecord {
        let base = record.startIndex
        let length = record.count
        func u32(_ at: Int) -> UInt32 { readU32(record, base + at) }
        func u16(_ at: Int) -> UInt16 { UInt16(record[base + at]) | UInt16(record[base + at + 1]) << 8 }
        func name(_ at: Int) -> String {
            let bytes = record[(base + at)...].prefix(while: { $0 != 0 })
            return String(decoding: bytes, as: UTF8.self)
        }
        switch type {
        case CanonEOSEventType.objectAddedEx where length >= 41:
            return .objectAdded(
                CanonObjectAdded(
                    recordType: type, handle: u32(8), storageID: u32(12), format: PTPObjectFormat(u16(16)),
                    size: u32(28), parent: u32(32), filename: name(40)))
        case CanonEOSEventType.objectAddedEx64 where length >= 45:
            return .objectAdded(
                CanonObjectAdded(
                    recordType: type, handle: u32(8), storageID: u32(12), format: PTPObjectFormat(u16(16)),
                    size: u32(28), parent: u32(36), filename: name(44)))
        case CanonEOSEventType.objectAddedEx64LFN where length >= 44:
            return .objectAdded(
                CanonObjectAdded(
                    recordType: type, handle: u32(8), storageID: u32(12), format: PTPObjectFormat(u16(16)),
                    size: u32(28), parent: u32(36), filename: trailingName(record, from: 44)))
        case CanonEOSEventType.requestObjectTransfer64LFN where length >= 37:
            return .requestObjectTransfer(
                CanonObjectAdded(
                    recordType: type, handle: u32(8), format: PTPObjectFormat(u16(12)), size: u32(20),
                    parent: u32(29), filename: ""))
        case CanonEOSEventType.requestObjectTransfer where length >= 29,
            CanonEOSEventType.requestObjectTransfer64 where length >= 29:
            return .requestObjectTransfer(
                CanonObjectAdded(
                    recordType: type, handle: u32(8), format: PTPObjectFormat(u16(12)), size: u32(20),
                    filename: name(28)))
        case CanonEOSEventType.propValueChanged where length >= 16:
            return .propValueChanged(property: u32(8), value: u32(12), raw: Array(record[(base + 16)...]))
        case CanonEOSEventType.availListChanged where length >= 12:
            // Data type at 12, count at 16, then the values, 4 bytes each whatever the type
            // (libgphoto2 ptp-pack.c, EOS PTP_EC_CANON_EOS_AvailListChanged).
            var values: [UInt32] = []
            if length >= 20 {
                let count = Int(u32(16))
                if count <= (length - 20) / 4 { values = (0..<count).map { u32(20 + 4 * $0) } }
            }
            return .availListChanged(property: u32(8), values: values)
        case let changed where CanonEOSEventType.handleRecords.contains(changed) && length >= 12:
            return .objectChanged(type: changed, handle: u32(8))
        default:
            return .unknown(type: type, size: size)
        }
    }

    /// The file name of a 0xC1B6 record: a PTP string (u8 count of UTF-16 units including the NUL,
    /// then UTF-16LE) that ends the record, found by its length prefix at or after `from`. Empty
    /// when there is none.
    static func trailingName(_ record: ArraySlice<UInt8>, from: Int) -> String {
        let base = record.startIndex
        var at = base + from
        while at < record.endIndex {
            let units = Int(record[at])
            if units > 0 && at + 1 + 2 * units == record.endIndex {
                var reader = PTPDataReader(Array(record[at...]))
                if let name = try? reader.readString(), !name.isEmpty { return name }
            }
            at += 1
        }
        return ""
    }

    private static func encodeRecord(_ record: CanonEOSEventRecord, into writer: inout PTPDataWriter) {
        let start = writer.count
        writer.appendU32(0)
        writer.appendU32(record.recordType)
        switch record {
        case .objectAdded(let object), .requestObjectTransfer(let object):
            encodeObject(object, into: &writer)
        case .propValueChanged(let property, let value, let raw):
            writer.appendU32(property)
            writer.appendU32(value)
            writer.appendBytes(raw)
        case .availListChanged(let property, let values):
            writer.appendU32(property)
            if !values.isEmpty {
                writer.appendU32(3)
                writer.appendU32(UInt32(values.count))
                for value in values { writer.appendU32(value) }
            }
        case .objectChanged(let type, let handle):
            writer.appendU32(handle)
            // ObjectInfoChangedEx has ObjectAddedEx's layout (name @40, @44 in the 64-bit forms):
            // libgphoto2 skips one shorter than its name field. The other fields are left empty.
            if CanonEOSEventType.objectChanges.contains(type) && type != CanonEOSEventType.objectContentChanged {
                writer.appendZeros(type == CanonEOSEventType.objectInfoChangedEx ? 29 : 33)
            }
        case .unknown(_, let size):
            writer.appendZeros(Int(max(size, 8)) - 8)
        }
        writer.setU32(UInt32(truncatingIfNeeded: writer.count - start), at: start)
    }

    private static func encodeObject(_ object: CanonObjectAdded, into writer: inout PTPDataWriter) {
        writer.appendU32(object.handle)
        switch object.recordType {
        case CanonEOSEventType.requestObjectTransfer, CanonEOSEventType.requestObjectTransfer64:
            writer.appendU32(UInt32(object.format.rawValue))  // @12
            writer.appendU32(0)  // @16
            writer.appendU32(object.size)  // @20
            writer.appendU32(0)  // @24
        case CanonEOSEventType.requestObjectTransfer64LFN:
            writer.appendU32(UInt32(object.format.rawValue))  // @12
            writer.appendU32(0)  // @16
            writer.appendU64(UInt64(object.size))  // @20
            writer.appendU8(0)  // @28
            writer.appendU32(object.parent)  // @29
            writer.appendU32(0)  // @33, 37 bytes in all
            return
        case CanonEOSEventType.objectAddedEx64, CanonEOSEventType.objectAddedEx64LFN:
            writer.appendU32(object.storageID)  // @12
            writer.appendU16(object.format.rawValue)  // @16
            writer.appendZeros(10)  // @18
            writer.appendU64(UInt64(object.size))  // @28
            writer.appendU32(object.parent)  // @36
            writer.appendU32(0)  // @40
            if object.recordType == CanonEOSEventType.objectAddedEx64LFN {
                writer.appendZeros(16)  // @44: where bodies keep the date
                writer.appendString(object.filename)  // the name ends the record
                return
            }
        default:
            writer.appendU32(object.storageID)  // @12
            writer.appendU16(object.format.rawValue)  // @16
            writer.appendZeros(10)  // @18
            writer.appendU32(object.size)  // @28
            writer.appendU32(object.parent)  // @32
            writer.appendU32(0)  // @36
        }
        writer.appendBytes(object.filename.utf8.prefix(while: { $0 != 0 }))
        writer.appendU8(0)
    }

    private static func readU32(_ bytes: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
        UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
            | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24
    }

    private static func readU32(_ bytes: [UInt8], _ index: Int) -> UInt32 {
        readU32(bytes[...], index)
    }
}
