import Foundation

/// Which camera libgphoto2 opens, from `--camera`: `usb` (the first camera libgphoto2 detects on
/// USB), `usb:BUS,DEV` (one USB device, as `lsusb` numbers it), or `gphoto2:PORT` for any port
/// string libgphoto2 knows (`gphoto2:ptpip:192.168.1.2`, `gphoto2:usb:001,005`, `gphoto2 --list-ports`).
public enum GPhoto2Port: Equatable, Hashable, Sendable, CustomStringConvertible {
    case firstUSB
    case usb(bus: Int, device: Int)
    case path(String)

    /// The port for a `--camera` value, nil when the value is not one of the libgphoto2 forms
    /// (it may then be a PTP/IP address); the error says what a malformed one should look like.
    public static func parse(_ text: String) throws(GPhoto2PortError) -> GPhoto2Port? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        if lower == "usb" { return .firstUSB }
        if lower.hasPrefix("usb:") {
            let numbers = trimmed.dropFirst(4).split(separator: ",", omittingEmptySubsequences: false)
            guard numbers.count == 2, let bus = Int(numbers[0]), let device = Int(numbers[1]),
                (1...999).contains(bus), (1...999).contains(device)
            else {
                throw GPhoto2PortError(text: text)
            }
            return .usb(bus: bus, device: device)
        }
        if lower.hasPrefix("gphoto2:") {
            let port = String(trimmed.dropFirst("gphoto2:".count))
            // A libgphoto2 port path is TYPE:WHERE (ptpip:…, usb:…, serial:…, disk:…, ip:…).
            guard let colon = port.firstIndex(of: ":"), colon != port.startIndex,
                port[..<colon].allSatisfy({ $0.isLetter }), !port.contains(where: \.isWhitespace)
            else {
                throw GPhoto2PortError(text: text)
            }
            if let usb = try? parse(port), case .usb = usb { return usb }
            if port.lowercased() == "usb:" { return .firstUSB }
            return .path(port)
        }
        return nil
    }

    /// The port path libgphoto2's port list knows it by (libgphoto2 names USB devices
    /// `usb:%03d,%03d`: libgphoto2_port/libusb1/libusb1.c); nil for "the first camera detected".
    public var portPath: String? {
        switch self {
        case .firstUSB: return nil
        case .usb(let bus, let device): return "usb:" + Self.threeDigits(bus) + "," + Self.threeDigits(device)
        case .path(let path): return path
        }
    }

    /// Whether the camera sits on USB, where a replugged body comes back at a new device number.
    public var isUSB: Bool {
        switch self {
        case .firstUSB, .usb: return true
        case .path(let path): return path.lowercased().hasPrefix("usb:")
        }
    }

    public var description: String {
        switch self {
        case .firstUSB: return "usb"
        case .usb(let bus, let device): return "usb:\(Self.threeDigits(bus)),\(Self.threeDigits(device))"
        case .path(let path): return "gphoto2:" + path
        }
    }

    private static func threeDigits(_ number: Int) -> String {
        let text = String(number)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }
}

/// A `--camera` value that starts like a libgphoto2 address but is not one.
public struct GPhoto2PortError: Error, Equatable, Sendable, CustomStringConvertible {
    public let text: String

    public var description: String {
        "--camera '\(text)' is not a libgphoto2 camera: give usb (the first USB camera), usb:BUS,DEV (e.g. usb:001,005, "
            + "from relay discover or lsusb) or gphoto2:PORT (e.g. gphoto2:ptpip:192.168.1.2; gphoto2 --list-ports lists them)"
    }
}
