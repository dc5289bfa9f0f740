import Foundation
import GPhoto2
import Intake
import RelayCore
import RunEvents
import Spool

/// Takes photos from a camera libgphoto2 opens (USB, or any libgphoto2 port) into the spool:
/// opens it, serves it with a ``GPhoto2Session`` and, whenever it drops (unplugged, switched off,
/// asleep) or refuses, opens it again with backoff, by serial number, until relay stops.
///
/// `@unchecked Sendable`: built on one thread and then run, whole, on the source's thread;
/// `run(until:)` is its only entry point. Its libgphoto2 calls run on the camera's owner thread.
public final class GPhoto2Source: PhotoSource, @unchecked Sendable {
    public struct Options: Sendable {
        public var port: GPhoto2Port
        /// Take RAW files too (by default they stay on the card and are counted as skipped).
        public var includeRAW = false
        /// Take what was on the card before relay first connected to this camera.
        public var includeExisting = false
        /// Bytes per `gp_camera_file_read`: what a drop costs at most, and what is held in memory.
        public var chunkSize = CameraSource.Options.defaultChunkSize
        /// Waits between reconnects: 0.5 s doubling up to 10 s, so a replugged camera is back within seconds.
        public var reconnect = Backoff(base: 0.5, cap: 10)
        /// A timed capture that fires this camera (`relay capture`).
        public var capture: (any CaptureHook)?

        public init(port: GPhoto2Port) {
            self.port = port
        }
    }

    public let options: Options
    public var label: String { "camera \(options.port)" }
    /// Its `expectedSerial`: a USB camera comes back at a new device number when it is
    /// replugged, and is found again by it.
    private var tether: CameraTether

    public init(
        options: Options, spool: Spool, home: RelayHome,
        report: SourceReporter
    ) throws(StateFileError) {
        self.options = options
        tether = try CameraTether(spool: spool, home: home, report: report)
    }

    public func run(until stop: StopFlag) {
        let loop = CameraReconnectLoop(
            backoff: { _ in self.options.reconnect },
            fatalMessage: { error in
                guard let error = error as? GPhoto2Error, !error.isRetryable else { return nil }
                return "\(error)"
            },
            shortReason: { error in (error as? GPhoto2Error)?.shortReason ?? "camera error" }, report: tether.report)
        tether.run(until: stop, loop: loop) { connected in try serveOnce(stop: stop, connected: connected) }
    }

    /// One connection: open the camera, serve it until it fails (throws) or relay stops.
    private func serveOnce(stop: StopFlag, connected: () -> Void) throws {
        tether.report(.connecting("camera: opening \(options.port)"))
        let camera = try openCamera()
        defer { camera.close() }
        let arrival = try tether.arrived(
            serial: Self.serial(of: camera), name: camera.name, manufacturer: camera.summary.manufacturer ?? "",
            model: camera.summary.model ?? camera.driverModel, address: "gphoto2:" + camera.port)
        connected()
        defer { if !stop.isStopped { options.capture?.cameraGone() } }
        let context = tether.sessionContext(options: options, stop: stop)
        try GPhoto2Session(camera: camera, memory: arrival.memory, context: context, firstConnection: arrival.firstConnection).run()
    }

    /// The camera at the port; on USB, once a camera was tethered, the one with its serial
    /// wherever it is plugged now.
    private func openCamera() throws -> GPhoto2Camera {
        var firstError: GPhoto2Error?
        do {
            let camera = try GPhoto2Camera.open(options.port.portPath)
            guard options.port.isUSB, let expectedSerial = tether.expectedSerial, Self.serial(of: camera) != expectedSerial else {
                return camera
            }
            camera.close()
        } catch {
            guard options.port.isUSB, tether.expectedSerial != nil, error.kind == .noCamera else { throw error }
            firstError = error
        }
        for detected in try GPhoto2Camera.detect() where detected.port.lowercased().hasPrefix("usb:") {
            guard let camera = try? GPhoto2Camera.open(detected.port) else { continue }
            if Self.serial(of: camera) == tether.expectedSerial {
                tether.report(.info("\(camera.name) is back at \(detected.port)"))
                return camera
            }
            camera.close()
        }
        throw firstError
            ?? GPhoto2Error(
                code: GPhoto2Result.modelNotFound, operation: "find the camera with serial \(tether.expectedSerial ?? "")",
                detail: "no USB camera with that serial number is attached")
    }

    /// What relay remembers the camera by (its seen-log and its photos' spool source). The
    /// seen-log keys of this backend are not those of PTP/IP, so the two keep apart.
    static func serial(of camera: GPhoto2Camera) -> String {
        "gphoto2-" + (camera.summary.serial ?? (camera.summary.model ?? camera.driverModel))
    }

}

extension GPhoto2Camera {
    /// "MODEL (serial …)" for messages.
    var name: String {
        let model = summary.model ?? driverModel
        return summary.serial.map { "\(model) (serial \($0))" } ?? model
    }
}

extension GPhoto2Source.Options: CaptureSetting {
    public var label: String { "camera \(port)" }

    public func makeSource(spool: Spool, home: RelayHome, report: SourceReporter) throws -> any PhotoSource {
        try GPhoto2Source(options: self, spool: spool, home: home, report: report)
    }
}
