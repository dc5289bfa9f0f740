import Foundation

/// The UPnP service types cameras announce when their Wi-Fi remote connection is on. A body
/// that announces one of these speaks PTP/IP on 15740 at the announcing address.
///
/// Sources: rocc (`UPnPService.swift`: Canon EOS `ICPO-WFTEOSSystemService`); airnef
/// (testcams.com, `ssdp.py` and `airnefcmd.py`: the Canon smartphone-mode service
/// `ICPO-SmartPhoneEOSSystemService` captured from a Canon 6D, and `MtpNullService` under
/// Microsoft's `urn:microsoft-com` namespace captured from a Sony A7s; no `schemas-sony-com` name
/// is used for it).
public enum CameraServiceType: String, CaseIterable, Sendable, Codable {
    /// Canon EOS in EOS Utility / WFT mode (remote control from a computer).
    case canonEOSUtility = "urn:schemas-canon-com:service:ICPO-WFTEOSSystemService:1"
    /// Canon EOS and PowerShot in smartphone mode.
    case canonSmartphone = "urn:schemas-canon-com:service:ICPO-SmartPhoneEOSSystemService:1"
    /// Sony in "Send to Computer" / PC Remote over Wi-Fi (an MTP-over-IP service).
    case sonyMTP = "urn:microsoft-com:service:MtpNullService:1"

    /// The maker, as shown before the description is read.
    public var vendor: String {
        switch self {
        case .canonEOSUtility, .canonSmartphone: return "Canon"
        case .sonyMTP: return "Sony"
        }
    }

    /// The camera service a message is about: its `ST`/`NT`, else the type after `::` in its
    /// `USN` (an answer to `ssdp:all` may carry a device type in `ST`). Nil for everything else
    /// on the network (routers, TVs, media servers).
    public static func of(_ message: SSDPMessage) -> CameraServiceType? {
        if let type = message.type, let known = CameraServiceType(rawValue: type) { return known }
        guard let usn = message.uniqueServiceName, let separator = usn.range(of: "::") else { return nil }
        return CameraServiceType(rawValue: String(usn[separator.upperBound...]))
    }
}
