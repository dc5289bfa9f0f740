import Foundation
import Intake
import RelayCore
import RunEvents
import Spool

/// What both camera sources (PTP/IP and libgphoto2) hold and do around a connection, whichever
/// way they reach the camera: the spool, the registry of known bodies and their memories, which
/// camera this run tethers, and what follows a camera's arrival. Each source owns one and adds
/// only how it opens and serves its camera.
struct CameraTether {
    let spool: Spool
    let registry: CameraRegistry
    let report: SourceReporter
    let memories: CameraMemories
    /// The serial of the camera this run tethers, once one has connected: the camera looked for
    /// again after a drop (a USB camera replugged elsewhere, an `auto` camera at a new address).
    private(set) var expectedSerial: String?

    init(spool: Spool, home: RelayHome, report: SourceReporter) throws(StateFileError) {
        self.spool = spool
        self.report = report
        try home.createIfNeeded()
        registry = try CameraRegistry(home: home)
        memories = CameraMemories(home: home)
    }

    /// The camera connected, and its session is open.
    struct Arrival {
        /// What relay keeps of this body across connections (its partial downloads).
        let memory: CameraMemory
        /// Whether relay never connected to this body before: what is on its card then was
        /// shot before relay, and is taken only with `--include-existing`.
        let firstConnection: Bool
    }

    /// Notes a camera's arrival (`name` for messages; `address` where relay reached it): says
    /// so when another body answers where this run's camera was, and records the body as
    /// connected in the registry.
    mutating func arrived(serial: String, name: String, manufacturer: String, model: String, address: String) throws -> Arrival {
        if let expectedSerial, expectedSerial != serial {
            report(
                .info(
                    "a different camera answers at \(address): \(name) instead of serial \(expectedSerial); "
                        + "relay takes its photos now"))
        }
        expectedSerial = serial
        let memory = try memories.memory(for: serial)
        let firstConnection = !(registry.camera(serial: serial)?.existingPhotosRecorded ?? false)
        try registry.noteConnected(serial: serial, manufacturer: manufacturer, model: model, address: address)
        return Arrival(memory: memory, firstConnection: firstConnection)
    }

    /// Serves the camera, connection after connection, through `loop` until relay stops; then
    /// drops the partial downloads kept for resuming (the next run clears `.incoming/` anyway).
    func run(until stop: StopFlag, loop: CameraReconnectLoop, serveOnce: (_ connected: () -> Void) throws -> Void) {
        loop.run(until: stop, serve: serveOnce)
        memories.discardPartials(in: spool)
    }

    /// What a session of this tether works with.
    func sessionContext<Options>(options: Options, stop: StopFlag) -> SessionContext<Options> {
        SessionContext(spool: spool, registry: registry, options: options, report: report, stop: stop)
    }
}

/// What one camera session works with: where photos go, the registry, the source's options,
/// where it reports, and relay's stop.
struct SessionContext<Options> {
    let spool: Spool
    let registry: CameraRegistry
    let options: Options
    let report: SourceReporter
    let stop: StopFlag
}
