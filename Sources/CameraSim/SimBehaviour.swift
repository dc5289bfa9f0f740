import PTPWire

/// Who a simulated body says it is (DeviceInfo, the PTP/IP friendly name) and how it names and
/// sends its files. One value per profile, defined beside its family's behaviour.
public struct SimBody: Sendable {
    public var vendorExtensionID: UInt32
    public var vendorExtensionVersion: UInt16 = 100
    public var vendorExtensionDescription: String
    public var manufacturer: String
    public var model: String
    public var deviceVersion: String
    /// Stable per profile, so that a client remembering cameras by serial sees the same camera
    /// across restarts.
    public var serialNumber: String
    /// The folder in DCIM, as the vendor's own bodies name it.
    public var folderName: String
    /// File names: prefix + 4-digit counter ("IMG_0001").
    public var namePrefix: String
    /// File extension and PTP format code of the RAW companion.
    public var rawFormat: (fileExtension: String, formatCode: UInt16)
    public var storageDescription: String
    /// Bytes per Data packet in a data phase; nil sends the whole phase in EndData.
    public var dataPacketSize: Int?
    /// Canon: every byte goes in Data packets, then an empty EndData.
    public var endsWithEmptyEndData = false

    /// The serial as the body writes it into a photo's EXIF: the DeviceInfo's, without the
    /// zeros some bodies pad it with (a Z 8 reports 32 characters over PTP/IP).
    var exifSerial: String {
        let trimmed = serialNumber.drop { $0 == "0" }
        return trimmed.isEmpty ? serialNumber : String(trimmed)
    }
}

/// What one vendor family does differently from standard PTP, for one client session. The
/// standard operations are answered by `SimCamera`; a behaviour answers its vendor operations,
/// overrides standard ones where its bodies do, and decides what to announce. Adding a body means
/// one behaviour file and one `SimProfile` case.
protocol SimBehaviour: Sendable {
    /// Operations DeviceInfo lists now (a body may list more once the session is set up).
    func operations(camera: SimCamera) -> [PTPOperationCode]
    /// Events DeviceInfo lists.
    var events: [PTPEventCode] { get }
    /// Device properties DeviceInfo lists (the battery's, where the family exposes it so).
    var properties: [PTPDevicePropertyCode] { get }
    /// The answer to an operation before the usual checks (listed, session open); nil to go on.
    /// A body that refuses anything before its handshake answers here.
    mutating func screen(_ request: PTPOperationRequest, camera: inout SimCamera) -> SimReply?
    /// The family's answer to a listed operation in an open session; nil for the standard one.
    mutating func respond(to request: PTPOperationRequest, dataOut: [UInt8]?, camera: inout SimCamera) -> SimReply?
    /// Events to push on the event channel now.
    mutating func takePushEvents(camera: inout SimCamera) -> [PTPEvent]
    /// A property changed on the body (the battery level, now and then).
    mutating func changeProperty()
}

extension SimBehaviour {
    var properties: [PTPDevicePropertyCode] { [] }
    mutating func screen(_ request: PTPOperationRequest, camera: inout SimCamera) -> SimReply? { nil }
    mutating func takePushEvents(camera: inout SimCamera) -> [PTPEvent] { [] }
    mutating func changeProperty() {}
}
