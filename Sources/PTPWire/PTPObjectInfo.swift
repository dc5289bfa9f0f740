/// The ObjectInfo dataset (GetObjectInfo): a file's or folder's name, format, size and parent.
public struct PTPObjectInfo: Equatable, Sendable {
    /// Association type of a generic folder (DCIM, 100CANON).
    public static let associationGenericFolder: UInt16 = 1

    public var storageID: UInt32
    public var objectFormat: PTPObjectFormat
    public var protectionStatus: UInt16
    /// Low 32 bits of the size (PTP 1.0 has no wider field).
    public var compressedSize: UInt32
    public var thumbFormat: PTPObjectFormat
    public var thumbCompressedSize: UInt32
    public var thumbPixWidth: UInt32
    public var thumbPixHeight: UInt32
    public var imagePixWidth: UInt32
    public var imagePixHeight: UInt32
    public var imageBitDepth: UInt32
    /// The folder's handle, 0 when the object is in the root.
    public var parentObject: UInt32
    public var associationType: UInt16
    public var associationDesc: UInt32
    public var sequenceNumber: UInt32
    public var filename: String
    /// `YYYYMMDDThhmmss`, possibly with fractions or a zone; empty when unknown.
    public var captureDate: String
    public var modificationDate: String
    public var keywords: String

    public init(
        storageID: UInt32, objectFormat: PTPObjectFormat, protectionStatus: UInt16 = 0,
        compressedSize: UInt32, thumbFormat: PTPObjectFormat = PTPObjectFormat(0),
        thumbCompressedSize: UInt32 = 0, thumbPixWidth: UInt32 = 0, thumbPixHeight: UInt32 = 0,
        imagePixWidth: UInt32 = 0, imagePixHeight: UInt32 = 0, imageBitDepth: UInt32 = 0,
        parentObject: UInt32 = 0, associationType: UInt16 = 0, associationDesc: UInt32 = 0,
        sequenceNumber: UInt32 = 0, filename: String, captureDate: String = "",
        modificationDate: String = "", keywords: String = ""
    ) {
        self.storageID = storageID
        self.objectFormat = objectFormat
        self.protectionStatus = protectionStatus
        self.compressedSize = compressedSize
        self.thumbFormat = thumbFormat
        self.thumbCompressedSize = thumbCompressedSize
        self.thumbPixWidth = thumbPixWidth
        self.thumbPixHeight = thumbPixHeight
        self.imagePixWidth = imagePixWidth
        self.imagePixHeight = imagePixHeight
        self.imageBitDepth = imageBitDepth
        self.parentObject = parentObject
        self.associationType = associationType
        self.associationDesc = associationDesc
        self.sequenceNumber = sequenceNumber
        self.filename = filename
        self.captureDate = captureDate
        self.modificationDate = modificationDate
        self.keywords = keywords
    }

    /// Decodes the dataset. The strings after the fixed 52 bytes are required up to the file name;
    /// cameras that stop after it (no dates or keywords) decode with those fields empty.
    public init(decoding bytes: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(bytes)
        storageID = try reader.readU32()
        objectFormat = PTPObjectFormat(try reader.readU16())
        protectionStatus = try reader.readU16()
        compressedSize = try reader.readU32()
        thumbFormat = PTPObjectFormat(try reader.readU16())
        thumbCompressedSize = try reader.readU32()
        thumbPixWidth = try reader.readU32()
        thumbPixHeight = try reader.readU32()
        imagePixWidth = try reader.readU32()
        imagePixHeight = try reader.readU32()
        imageBitDepth = try reader.readU32()
        parentObject = try reader.readU32()
        associationType = try reader.readU16()
        associationDesc = try reader.readU32()
        sequenceNumber = try reader.readU32()
        filename = try reader.readString()
        captureDate = reader.isAtEnd ? "" : try reader.readString()
        modificationDate = reader.isAtEnd ? "" : try reader.readString()
        keywords = reader.isAtEnd ? "" : try reader.readString()
    }

    public func encoded() -> [UInt8] {
        var writer = PTPDataWriter(capacity: 128)
        writer.appendU32(storageID)
        writer.appendU16(objectFormat.rawValue)
        writer.appendU16(protectionStatus)
        writer.appendU32(compressedSize)
        writer.appendU16(thumbFormat.rawValue)
        writer.appendU32(thumbCompressedSize)
        writer.appendU32(thumbPixWidth)
        writer.appendU32(thumbPixHeight)
        writer.appendU32(imagePixWidth)
        writer.appendU32(imagePixHeight)
        writer.appendU32(imageBitDepth)
        writer.appendU32(parentObject)
        writer.appendU16(associationType)
        writer.appendU32(associationDesc)
        writer.appendU32(sequenceNumber)
        writer.appendString(filename)
        writer.appendString(captureDate)
        writer.appendString(modificationDate)
        writer.appendString(keywords)
        return writer.bytes
    }

    /// Whether this object is a folder.
    public var isFolder: Bool { objectFormat == .association }

    /// Whether the card protects it: ProtectionStatus ReadOnly (0x0001), or MTP's read-only
    /// data (0x8002) (libgphoto2 `camlibs/ptp2/ptp.h`, PTP_PS_*).
    public var isProtected: Bool { protectionStatus == 0x0001 || protectionStatus == 0x8002 }

    /// JPEG/RAW/other by format code first, file name second.
    public var photoKind: PTPObjectFormat.PhotoKind { objectFormat.photoKind(fileName: filename) }
}
