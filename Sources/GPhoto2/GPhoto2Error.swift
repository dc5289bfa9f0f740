import Foundation

/// A libgphoto2 call that failed: its result code, what relay was doing, and the text
/// libgphoto2 put in its context (the port's own words, e.g. "Could not claim interface 0").
/// The description tells the photographer what to do about it.
public struct GPhoto2Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// libgphoto2's result code (negative).
    public let code: Int32
    /// What relay was doing, as a phrase: "open the camera at usb:001,005".
    public let operation: String
    /// libgphoto2's own message for the failure, if it gave one.
    public let detail: String?

    public init(code: Int32, operation: String, detail: String? = nil) {
        self.code = code
        self.operation = operation
        let trimmed = detail?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.detail = trimmed?.isEmpty == false ? trimmed : nil
    }

    /// What went wrong, as far as the photographer can act on it.
    public enum Kind: Equatable, Sendable {
        /// Another program (the desktop's volume monitor, another tethering tool) holds the camera.
        case claimedByAnotherProgram
        /// The USB device node is not writable for this user.
        case permissionDenied
        /// No camera at the port, or none detected: unplugged, off, or in a USB mode libgphoto2 cannot tether.
        case noCamera
        /// The camera answered busy.
        case busy
        /// The link broke or timed out mid-conversation: unplugged, switched off, asleep.
        case connectionLost
        /// The driver cannot do this with this camera.
        case notSupported
        /// A file or folder that is not (or no longer) on the camera.
        case fileGone
        /// libgphoto2 does not know the port string.
        case unknownPort
        /// libgphoto2's drivers are missing or broken on this machine.
        case library
        case other
    }

    public var kind: Kind {
        let text = (detail ?? "").lowercased()
        if code == GPhoto2Result.usbClaim || code == GPhoto2Result.lock || text.contains("could not claim") {
            return .claimedByAnotherProgram
        }
        // libusb_open's LIBUSB_ERROR_ACCESS comes back as a plain I/O error; its text says why
        // (libgphoto2_port/libusb1/libusb1.c).
        if text.contains("access denied") || text.contains("insufficient permissions") || text.contains("permission denied") {
            return .permissionDenied
        }
        switch code {
        case GPhoto2Result.modelNotFound, GPhoto2Result.usbFind: return .noCamera
        case GPhoto2Result.cameraBusy: return .busy
        case GPhoto2Result.io, GPhoto2Result.ioRead, GPhoto2Result.ioWrite, GPhoto2Result.ioInit, GPhoto2Result.ioUpdate,
            GPhoto2Result.timeout, GPhoto2Result.usbClearHalt, GPhoto2Result.cancel:
            return .connectionLost
        case GPhoto2Result.notSupported: return .notSupported
        case GPhoto2Result.fileNotFound, GPhoto2Result.directoryNotFound: return .fileGone
        case GPhoto2Result.unknownPort: return .unknownPort
        case GPhoto2Result.library: return .library
        default: return .other
        }
    }

    /// Whether trying again later can help (relay reconnects); false when the photographer must act first.
    public var isRetryable: Bool {
        switch kind {
        case .unknownPort, .library: return false
        default: return true
        }
    }

    public var description: String {
        let said = detail.map { " (libgphoto2: \($0))" } ?? " (libgphoto2 error \(code))"
        return "could not \(operation)\(said): " + advice
    }

    /// A few words for the progress line.
    public var shortReason: String {
        switch kind {
        case .claimedByAnotherProgram: return "another program holds the camera"
        case .permissionDenied: return "no permission for the camera's USB device"
        case .noCamera: return "no camera found"
        case .busy: return "camera busy"
        case .connectionLost: return "camera stopped answering"
        case .notSupported: return "the driver cannot do that"
        case .fileGone: return "file no longer on the camera"
        case .unknownPort: return "port unknown to libgphoto2"
        case .library: return "libgphoto2's drivers did not load"
        case .other: return "camera error"
        }
    }

    /// What to do about it.
    public var advice: String {
        switch kind {
        case .claimedByAnotherProgram:
            return "another program holds the camera. On a Linux desktop that is usually the volume monitor: "
                + "systemctl --user stop gvfs-gphoto2-volume-monitor (mask it to keep it off), and close gphoto2, "
                + "Shotwell, digiKam, darktable or Entangle; then relay takes the camera"
        case .permissionDenied:
            return "this user may not open the camera's USB device. Debian's libgphoto2 udev rule "
                + "(/lib/udev/rules.d/60-libgphoto2-6.rules) gives it to the group plugdev: sudo usermod -aG plugdev $USER, "
                + "log in again and replug the camera"
        case .noCamera:
            return "no camera answers there. Check it is on and plugged in, and that its USB mode is PTP / \"PC connect\" / "
                + "\"PC Remote\" (not Mass Storage or MTP, which cannot be tethered); relay discover lists the cameras libgphoto2 sees"
        case .busy:
            return "the camera is busy (saving, or a menu is open); relay asks again"
        case .connectionLost:
            return "the camera stopped answering (unplugged, switched off or asleep); relay reconnects when it is back"
        case .notSupported:
            return "libgphoto2's driver cannot do that with this camera"
        case .fileGone:
            return "the file is no longer on the camera"
        case .unknownPort:
            return "libgphoto2 does not know that port: gphoto2 --list-ports lists the ones it has, relay discover the cameras"
        case .library:
            return "libgphoto2's camera drivers did not load: reinstall libgphoto2-6 (apt-get install --reinstall libgphoto2-6)"
        case .other:
            return "relay tries again; if it keeps failing, try the camera with gphoto2 --summary"
        }
    }
}

/// libgphoto2's result codes relay tells apart (gphoto2/gphoto2-result.h and
/// libgphoto2_port/gphoto2/gphoto2-port-result.h in gphoto/libgphoto2).
public enum GPhoto2Result {
    public static let ok: Int32 = 0
    public static let generic: Int32 = -1
    public static let library: Int32 = -4
    public static let unknownPort: Int32 = -5
    public static let notSupported: Int32 = -6
    public static let io: Int32 = -7
    public static let timeout: Int32 = -10
    public static let ioInit: Int32 = -31
    public static let ioRead: Int32 = -34
    public static let ioWrite: Int32 = -35
    public static let ioUpdate: Int32 = -37
    public static let usbClearHalt: Int32 = -51
    public static let usbFind: Int32 = -52
    public static let usbClaim: Int32 = -53
    public static let lock: Int32 = -60
    public static let modelNotFound: Int32 = -105
    public static let directoryNotFound: Int32 = -107
    public static let fileNotFound: Int32 = -108
    public static let cameraBusy: Int32 = -110
    public static let cancel: Int32 = -112
}
