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
    private let spool: Spool
    private let registry: CameraRegistry
    private let report: SourceReporter
    private let memories: CameraMemories
    /// The serial of the camera this run tethers, once one has connected: a USB camera comes
    /// back at a new device number when it is replugged, and is found again by it.
    private var expectedSerial: String?

    public init(
        options: Options, spool: Spool, home: RelayHome,
        report: SourceReporter
    ) throws(StateFileError) {
        self.options = options
        self.spool = spool
        self.report = report
        try home.createIfNeeded()
        registry = try CameraRegistry(home: home)
        memories = CameraMemories(home: home)
    }

    public func run(until stop: StopFlag) {
        let loop = CameraReconnectLoop(
            backoff: { _ in self.options.reconnect },
            fatalMessage: { error in
                guard let error = error as? GPhoto2Error, !error.isRetryable else { return nil }
                return "\(error)"
            },
            shortReason: { error in (error as? GPhoto2Error)?.shortReason ?? "camera error" }, report: report)
        loop.run(until: stop) { connected in try serveOnce(stop: stop, connected: connected) }
        memories.discardPartials(in: spool)
    }

    /// One connection: open the camera, serve it until it fails (throws) or relay stops.
    private func serveOnce(stop: StopFlag, connected: () -> Void) throws {
        report(.connecting("camera: opening \(options.port)"))
        let camera = try openCamera()
        defer { camera.close() }
        let serial = Self.serial(of: camera)
        if let expectedSerial, expectedSerial != serial {
            report(
                .info(
                    "a different camera answers at \(options.port): \(camera.name) instead of serial \(expectedSerial); "
                        + "relay takes its photos now"))
        }
        expectedSerial = serial
        let memory = try memories.memory(for: serial)
        let firstConnection = !(registry.camera(serial: serial)?.existingPhotosRecorded ?? false)
        try registry.noteConnected(
            serial: serial, manufacturer: camera.summary.manufacturer ?? "",
            model: camera.summary.model ?? camera.driverModel, address: "gphoto2:" + camera.port)
        connected()
        defer { if !stop.isStopped { options.capture?.cameraGone() } }
        let context = GPhoto2Session.Context(spool: spool, registry: registry, options: options, report: report, stop: stop)
        try GPhoto2Session(camera: camera, memory: memory, context: context, firstConnection: firstConnection).run()
    }

    /// The camera at the port; on USB, once a camera was tethered, the one with its serial
    /// wherever it is plugged now.
    private func openCamera() throws -> GPhoto2Camera {
        var firstError: GPhoto2Error?
        do {
            let camera = try GPhoto2Camera.open(options.port.portPath)
            guard options.port.isUSB, let expectedSerial, Self.serial(of: camera) != expectedSerial else { return camera }
            camera.close()
        } catch {
            guard options.port.isUSB, expectedSerial != nil, error.kind == .noCamera else { throw error }
            firstError = error
        }
        for detected in try GPhoto2Camera.detect() where detected.port.lowercased().hasPrefix("usb:") {
            guard let camera = try? GPhoto2Camera.open(detected.port) else { continue }
            if Self.serial(of: camera) == expectedSerial {
                report(.info("\(camera.name) is back at \(detected.port)"))
                return camera
            }
            camera.close()
        }
        throw firstError
            ?? GPhoto2Error(
                code: GPhoto2Result.modelNotFound, operation: "find the camera with serial \(expectedSerial ?? "")",
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
