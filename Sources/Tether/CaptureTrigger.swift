import Foundation
import PTPIP
import PTPWire
import RelayCore

/// How relay fires a camera: the operation its vendor uses for a remote shutter release. Which
/// one a body takes is its dialect's choice (`CameraDialect.trigger`).
enum CaptureTrigger: Equatable {
    /// Canon EOS RemoteReleaseOn / RemoteReleaseOff: half press, then full press, let go in
    /// reverse order, as the shutter button is pressed (libgphoto2 library.c, EOS capture).
    case canonReleaseOnOff
    /// Canon RemoteRelease (older EOS bodies).
    case canonRelease
    /// Standard InitiateCapture (Nikon and standard PTP cameras).
    case initiateCapture
    /// Sony PC Remote: SetControlDeviceB on 0xD2C1 (half) then 0xD2C2 (full), value 2 down,
    /// then 1 up in reverse order (libgphoto2 library.c `camera_sony_capture`).
    case sonyHalfFull

    /// Attempts per shot while the camera answers DeviceBusy.
    static let busyAttempts = ReleaseRetry.attempts
    /// Waits between those attempts: 0.3 s, then 0.6 s.
    static let busyBackoff = ReleaseRetry.backoff
    /// RemoteReleaseOn's first parameter: 1 half press (focus), 2 full press (PTPIP.md).
    static let halfPress: UInt32 = 1
    static let fullPress: UInt32 = 2

    /// Standard InitiateCapture where the camera lists it (Nikon and standard PTP cameras), or
    /// why `session`'s camera cannot be fired remotely.
    static func standard(_ session: CameraSession) -> Result<CaptureTrigger, TriggerUnavailable> {
        if session.supports(.initiateCapture) { return .success(.initiateCapture) }
        return .failure(
            TriggerUnavailable(
                reason: "\(session.name) cannot be fired remotely: it lists no capture operation "
                    + "(InitiateCapture, or Canon RemoteRelease/RemoteReleaseOn) in its DeviceInfo. "
                    + "Check that the camera is in remote shooting mode, not playback or image transfer"))
    }

    /// Fires one shot. DeviceBusy is asked again (three attempts in all); any other answer than
    /// OK is a failed shot. A lost connection throws (the source reconnects).
    func fire(_ session: CameraSession, stop: StopFlag) throws(PTPIPError) -> TriggerResult {
        var busy = 0
        while true {
            let code = try press(session)
            if code.isOK { return .accepted(busyRetries: busy) }
            guard code == .deviceBusy else { return .failed("the camera answered \(code)") }
            busy += 1
            if busy >= Self.busyAttempts {
                return .failed("the camera answered DeviceBusy \(busy) times")
            }
            if stop.sleep(Self.busyBackoff.ceiling(attempt: busy - 1)) { throw .interrupted }
        }
    }

    /// One release, its answer as it comes (bracketing retries DeviceBusy itself).
    func press(_ session: CameraSession) throws(PTPIPError) -> PTPResponseCode {
        let client = session.client
        switch self {
        case .canonReleaseOnOff:
            var code = try client.transaction(.canonEOSRemoteReleaseOn, [Self.halfPress, 0]).code
            if code.isOK { code = try client.transaction(.canonEOSRemoteReleaseOn, [Self.fullPress, 0]).code }
            // Let go of the button whatever the press answered, or the body stays pressed.
            _ = try client.transaction(.canonEOSRemoteReleaseOff, [Self.fullPress])
            _ = try client.transaction(.canonEOSRemoteReleaseOff, [Self.halfPress])
            return code
        case .canonRelease:
            return try client.transaction(.canonEOSRemoteRelease).code
        case .initiateCapture:
            return try client.transaction(.initiateCapture, [0, 0]).code
        case .sonyHalfFull:
            func set(_ property: PTPDevicePropertyCode, _ value: UInt16) throws(PTPIPError) -> PTPResponseCode {
                try client.transaction(
                    .sonySetControlDeviceB, [UInt32(property.rawValue)],
                    dataOut: PTPDevicePropDesc.encodeValue(Int64(value), as: .uint16)
                ).code
            }
            var code = try set(.sonyShutterHalfRelease, 2)
            if code.isOK { code = try set(.sonyShutterRelease, 2) }
            // Let go of the button whatever the press answered.
            _ = try set(.sonyShutterRelease, 1)
            _ = try set(.sonyShutterHalfRelease, 1)
            return code
        }
    }
}

/// What became of one trigger.
enum TriggerResult: Equatable {
    case accepted(busyRetries: Int)
    case failed(String)
}

/// Why a camera cannot be fired remotely.
struct TriggerUnavailable: Error {
    let reason: String
}
