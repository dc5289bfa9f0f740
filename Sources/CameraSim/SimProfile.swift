/// Which camera the simulator pretends to be. A profile fixes what the client sees first (vendor
/// extension, manufacturer, model, the operations listed in DeviceInfo) and how new photos are
/// announced, because that is what makes gphoto2 and the tether take different code paths.
public enum SimProfile: String, CaseIterable, Sendable {
    /// Canon EOS over Wi-Fi: photos announced by polled GetEvent (0x9116) records.
    case canonEOS = "canon-eos"
    /// Nikon over Wi-Fi: photos announced by polled GetEvent (0x90C7).
    case nikon
    /// A standard PTP/IP camera: ObjectAdded events pushed on the event channel.
    case generic

    /// PTP vendor extension id reported in DeviceInfo.
    public var vendorExtensionID: UInt32 {
        switch self {
        case .canonEOS: return 0x0000_000B
        case .nikon: return 0x0000_000A
        case .generic: return 0x0000_0000
        }
    }

    public var vendorExtensionDescription: String {
        switch self {
        case .canonEOS: return "Canon EOS simulated by relay"
        case .nikon: return "Nikon PTP Extensions (simulated by relay)"
        case .generic: return ""
        }
    }

    public var manufacturer: String {
        switch self {
        case .canonEOS: return "Canon.Inc"
        case .nikon: return "Nikon Corporation"
        case .generic: return "Relay Simulated Cameras"
        }
    }

    public var model: String {
        switch self {
        case .canonEOS: return "Canon EOS R50 (relay camera-sim)"
        case .nikon: return "Z 6 (relay camera-sim)"
        case .generic: return "Generic PTP/IP (relay camera-sim)"
        }
    }

    public var deviceVersion: String {
        switch self {
        case .canonEOS: return "3-1.0.0"
        case .nikon: return "V1.00"
        case .generic: return "1.0"
        }
    }

    /// Folder names on the card, as the vendor's own bodies name them.
    public var folderName: String {
        switch self {
        case .canonEOS: return "100CANON"
        case .nikon: return "100NCZ_6"
        case .generic: return "100MSDCF"
        }
    }

    /// The base name of photo number `number` (1-based), as the vendor's bodies write it.
    public func baseName(number: Int) -> String {
        let counter = (number - 1) % 9999 + 1
        let digits = String(counter)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        switch self {
        case .canonEOS: return "IMG_" + padded
        case .nikon: return "DSC_" + padded
        case .generic: return "DSC0" + padded
        }
    }

    /// File extension and PTP format code of the RAW companion.
    public var rawFormat: (fileExtension: String, formatCode: UInt16) {
        switch self {
        case .canonEOS: return ("CR3", 0xB108)
        case .nikon: return ("NEF", 0x3000)   // Nikon bodies report NEF as "undefined"
        case .generic: return ("ARW", 0xB101) // Sony's RAW code
        }
    }

    /// Storage description shown by clients.
    public var storageDescription: String {
        switch self {
        case .canonEOS: return "SD"
        case .nikon: return "SD card"
        case .generic: return "Memory card"
        }
    }
}
