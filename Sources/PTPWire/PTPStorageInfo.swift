/// The StorageInfo dataset (GetStorageInfo): a card's capacity and free space.
public struct PTPStorageInfo: Equatable, Sendable {
    /// 1 fixed ROM, 2 removable ROM, 3 fixed RAM, 4 removable RAM (a memory card).
    public var storageType: UInt16
    /// 1 generic flat, 2 generic hierarchical, 3 DCF.
    public var filesystemType: UInt16
    /// 0 read-write, 1 read-only without deletion, 2 read-only with deletion.
    public var accessCapability: UInt16
    public var maxCapacity: UInt64
    public var freeSpaceInBytes: UInt64
    public var freeSpaceInImages: UInt32
    public var storageDescription: String
    public var volumeLabel: String

    public init(
        storageType: UInt16 = 4, filesystemType: UInt16 = 3, accessCapability: UInt16 = 0,
        maxCapacity: UInt64, freeSpaceInBytes: UInt64, freeSpaceInImages: UInt32 = 0xFFFF_FFFF,
        storageDescription: String = "", volumeLabel: String = ""
    ) {
        self.storageType = storageType
        self.filesystemType = filesystemType
        self.accessCapability = accessCapability
        self.maxCapacity = maxCapacity
        self.freeSpaceInBytes = freeSpaceInBytes
        self.freeSpaceInImages = freeSpaceInImages
        self.storageDescription = storageDescription
        self.volumeLabel = volumeLabel
    }

    /// Decodes the dataset; trailing bytes are ignored.
    public init(decoding bytes: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(bytes)
        storageType = try reader.readU16()
        filesystemType = try reader.readU16()
        accessCapability = try reader.readU16()
        maxCapacity = try reader.readU64()
        freeSpaceInBytes = try reader.readU64()
        freeSpaceInImages = try reader.readU32()
        storageDescription = try reader.readString()
        volumeLabel = try reader.readString()
    }

    /// FreeSpaceInImages, nil when the body does not estimate it (0xFFFFFFFF, ISO 15740 §5.5.3).
    public var freeImages: Int? {
        freeSpaceInImages == 0xFFFF_FFFF ? nil : Int(freeSpaceInImages)
    }

    public func encoded() -> [UInt8] {
        var writer = PTPDataWriter(capacity: 64)
        writer.appendU16(storageType)
        writer.appendU16(filesystemType)
        writer.appendU16(accessCapability)
        writer.appendU64(maxCapacity)
        writer.appendU64(freeSpaceInBytes)
        writer.appendU32(freeSpaceInImages)
        writer.appendString(storageDescription)
        writer.appendString(volumeLabel)
        return writer.bytes
    }
}
