import Foundation
import PTPWire

/// How a camera announces new photos, decided from its DeviceInfo.
public enum CameraDialect: Equatable, Sendable, CustomStringConvertible {
    /// Canon EOS: remote mode, event mode, and GetEvent (0x9116) polled for event records.
    case canonEOS
    /// Nikon: GetEvent (0x90C7), or GetEventEx (0x941C) where the camera lists it, polled.
    case nikon(getEventEx: Bool)
    /// Everything else: standard ObjectAdded events pushed on the event channel.
    case standard

    /// The dialect of the camera that sent `info`. A Microsoft vendor id (6) is also used by
    /// Canon and Nikon bodies: the manufacturer string decides then, as in libgphoto2. A vendor
    /// id alone does not switch on polling: the camera must list the operation.
    public static func of(_ info: PTPDeviceInfo) -> CameraDialect {
        let manufacturer = info.manufacturer.lowercased()
        var vendor = info.vendorExtensionID
        if vendor == .microsoft {
            if manufacturer.contains("canon") { vendor = .canon }
            if manufacturer.contains("nikon") { vendor = .nikon }
        }
        if vendor == .canon && info.supports(.canonEOSGetEvent) { return .canonEOS }
        if vendor == .nikon {
            if info.supports(.nikonGetEventEx) { return .nikon(getEventEx: true) }
            if info.supports(.nikonGetEvent) { return .nikon(getEventEx: false) }
        }
        return .standard
    }

    public var description: String {
        switch self {
        case .canonEOS: return "Canon EOS events"
        case .nikon(let ex): return ex ? "Nikon GetEventEx" : "Nikon GetEvent"
        case .standard: return "standard PTP events"
        }
    }
}
