import PTPWire

extension SimBody {
    /// A Nikon Z 8 over PTP/IP exactly as far as the public record shows it, and no further:
    /// the DeviceInfo of libgphoto2 issue 1135 (vendor id 0xFFFFFFFF, version 110,
    /// "Microsoft.com/DeviceServices: 1.0", model "Z 8", device version "V3.00", a 32-character
    /// serial number padded with zeros on the left).
    static let nikonZStrict = SimBody(
        vendorExtensionID: 0xFFFF_FFFF, vendorExtensionVersion: 110,
        vendorExtensionDescription: "Microsoft.com/DeviceServices: 1.0",
        manufacturer: "Nikon Corporation", model: "Z 8 (relay camera-sim, strict)", deviceVersion: "V3.00",
        serialNumber: "00000000000000000000SIM0Z8STRICT", folderName: "100NCZ_8", namePrefix: "DSC_",
        rawFormat: ("NEF", 0x3000), storageDescription: "SD card", dataPacketSize: nil)
}

/// The `nikon-z-strict` profile: a Nikon Z in "connect to computer" mode built from public facts
/// alone, where `nikon-z` is a richer reading of them. Each behaviour and its source:
///
/// - DeviceInfo lists only 0x1001 GetDeviceInfo, 0x1002 OpenSession, 0x1003 CloseSession,
///   0x935A, 0x9439 GetVendorCodes, 0x9440, 0x9441, 0x9442 and 0x952B (libgphoto2 issue 1135,
///   `print_debug_deviceinfo` before and after its fixup).
/// - GetObjectInfo (0x1008) and GetPartialObject (0x101B) answer AccessDenied, and
///   GetPartialObjectEx (0x9431) works, unlisted (libgphoto2 issue 976, a Z 6II in this mode).
///   Its response parameters give the bytes sent, low and high (libgphoto2 ptp.h).
/// - GetVendorCodes answers an empty code list: libgphoto2 asks it with 0xD and adds what
///   comes as properties (commit b1cc028, gphoto2 issue 700), but no Z 8's answer is public.
/// - Everything else answers OperationNotSupported, GetObjectSize (0x9421) and the card's
///   listing among them: issue 976 does not say they work. The listed 0x935A, 0x9440–0x9442 and
///   0x952B are not public either; they answer OK with no data and change nothing.
/// - New photos: whether a Z pushes ObjectAdded on the event channel or answers a polled
///   GetEvent is not public (docs/CAMERAS.md §2.4), so `--z-events` chooses: `pushed` (the
///   default) sends ObjectAdded on the event channel and answers neither GetEvent nor
///   GetEventEx; `polled` answers both, unlisted, and pushes nothing.
/// - A session with no operation for 30 s is dropped (`--idle-timeout`, every profile): bodies
///   end idle sessions, and events on the event channel do not count (airnef
///   `mtpSessionKeepAlive`).
struct NikonZStrictBehaviour: SimBehaviour {
    /// How the body announces new photos.
    enum Events: String, Sendable, Equatable {
        case pushed, polled
    }

    /// The operations the Z 8 of libgphoto2 issue 1135 lists.
    static let listed: [PTPOperationCode] = [
        .getDeviceInfo, .openSession, .closeSession, PTPOperationCode(0x935A), .nikonGetVendorCodes,
        PTPOperationCode(0x9440), PTPOperationCode(0x9441), PTPOperationCode(0x9442), PTPOperationCode(0x952B),
    ]

    let announcing: Events
    /// Answers GetPartialObjectEx and the event lists as the richer Nikon profile does.
    private var nikon = NikonBehaviour(isZ: true, computerMode: true)

    init(events: Events) {
        announcing = events
    }

    func operations(camera: SimCamera) -> [PTPOperationCode] { Self.listed }

    var events: [PTPEventCode] { [.objectAdded, .objectRemoved, .devicePropChanged, .captureComplete] }

    /// The unlisted operations issue 976 shows answering, in an open session.
    mutating func screen(_ request: PTPOperationRequest, camera: inout SimCamera) -> SimReply? {
        guard camera.sessionOpen, !Self.listed.contains(request.code) else { return nil }
        switch request.code {
        case .getObjectInfo, .getPartialObject:
            return SimReply(code: .accessDenied)
        case .nikonGetPartialObjectEx:
            return nikon.respond(to: request, dataOut: nil, camera: &camera)
        case .nikonGetEvent, .nikonGetEventEx:
            return announcing == .polled ? nikon.respond(to: request, dataOut: nil, camera: &camera) : nil
        default:
            return nil
        }
    }

    mutating func respond(to request: PTPOperationRequest, dataOut: [UInt8]?, camera: inout SimCamera) -> SimReply? {
        switch request.code {
        case .nikonGetVendorCodes:
            var writer = PTPDataWriter()
            writer.appendArrayU32([])
            return SimReply(code: .ok, data: writer.bytes)
        case .getDeviceInfo, .openSession, .closeSession:
            return nil
        default:
            return SimReply(code: .ok)
        }
    }

    /// `pushed`: ObjectAdded on the event channel for each new photo, once.
    mutating func takePushEvents(camera: inout SimCamera) -> [PTPEvent] {
        guard announcing == .pushed, camera.sessionOpen else { return [] }
        let fresh = camera.undelivered
        camera.undelivered.removeAll()
        return fresh.map { PTPEvent(code: .objectAdded, parameters: [$0.handle]) }
    }
}
