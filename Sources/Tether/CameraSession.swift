import Foundation
import PTPIP
import PTPWire
import RelayCore

/// A connected camera with an open session: who it is, which dialect it speaks, and operations
/// that are retried while it answers DeviceBusy (bodies do right after connecting and on low
/// battery).
///
/// Owned by the camera source's thread, like the client inside it.
final class CameraSession {
    let client: PTPIPClient
    /// Read at open, and again where a dialect's start-up changes it (EOS M remote mode, Sony's
    /// extra operations).
    var deviceInfo: PTPDeviceInfo {
        didSet { operations.listed = Set(deviceInfo.operationsSupported) }
    }
    /// The operations the body answers, listed or learned by asking.
    private(set) var operations: OperationSupport
    private let stop: StopFlag
    /// DeviceBusy answers retried in this session.
    private(set) var busyAnswers = 0
    /// Things a dialect noticed that the photographer may want to know (a malformed event
    /// record skipped); the session reports and clears them.
    var notices: [String] = []
    /// What the events said about the battery and card, for `CameraPower`.
    var powerSignals = CameraPowerSignals()

    /// Longest time one operation is retried while the camera answers DeviceBusy.
    static let busyBudget = 30.0
    /// Waits between busy retries: 50 ms doubling up to 1 s.
    static let busyBackoff = Backoff(base: 0.05, cap: 1)
    /// Longest data phase collected into memory (datasets and event lists; photos are streamed).
    static let collectLimit = 16 << 20

    private init(client: PTPIPClient, deviceInfo: PTPDeviceInfo, stop: StopFlag, busyAnswers: Int) {
        self.client = client
        self.deviceInfo = deviceInfo
        operations = OperationSupport(listed: deviceInfo.operationsSupported)
        self.stop = stop
        self.busyAnswers = busyAnswers
    }

    /// Seconds on a monotonic clock, for the dialects' timers.
    var now: Double { ProcessInfo.processInfo.systemUptime }

    /// "host:port" of the camera.
    var address: String { client.options.address }

    /// The camera's serial number, or a stand-in built from its model when it reports none.
    var serial: String {
        let serial = deviceInfo.serialNumber.trimmingCharacters(in: .whitespacesAndNewlines)
        return serial.isEmpty ? "no-serial-" + deviceInfo.model : serial
    }

    /// "Canon EOS R50 (serial 123)", for messages.
    var name: String { "\(deviceInfo.model) (serial \(serial))" }

    /// Connects, opens the session and reads DeviceInfo. A session the camera still holds from
    /// an earlier client is closed and opened again, as libgphoto2 does.
    static func open(
        _ options: PTPIPClientOptions, stop: StopFlag,
        interrupt: @escaping @Sendable () -> Bool
    ) throws(PTPIPError) -> CameraSession {
        let client = try PTPIPClient.connect(options, interrupt: interrupt, probeFujifilmPort: true)
        var busy = 0
        do throws(PTPIPError) {
            var opened = try retryingBusy(stop: stop, counting: &busy) { () throws(PTPIPError) in try client.openSession() }
            if opened.code == .sessionAlreadyOpen {
                _ = try client.transaction(.closeSession)
                opened = try retryingBusy(stop: stop, counting: &busy) { () throws(PTPIPError) in try client.openSession() }
            }
            try requireOK(opened, .openSession, address: options.address)
            let reply = try retryingBusy(stop: stop, counting: &busy) { () throws(PTPIPError) in
                try client.transaction(.getDeviceInfo, dataIn: .collect(limit: collectLimit))
            }
            let info = try decodeDeviceInfo(reply, address: options.address)
            if let body = UnsupportedCamera.recognise(manufacturer: info.manufacturer, model: info.model) {
                throw body.error(peer: options.address)
            }
            return CameraSession(client: client, deviceInfo: info, stop: stop, busyAnswers: busy)
        } catch {
            client.close()
            throw error
        }
    }

    /// Reads DeviceInfo again (a dialect's start-up can change what the camera lists).
    func rereadDeviceInfo() throws(PTPIPError) {
        let reply = try call(.getDeviceInfo, dataIn: .collect(limit: Self.collectLimit))
        deviceInfo = try Self.decodeDeviceInfo(reply, address: address)
    }

    private static func decodeDeviceInfo(_ reply: PTPIPReply, address: String) throws(PTPIPError) -> PTPDeviceInfo {
        try requireOK(reply, .getDeviceInfo, address: address)
        do {
            return try PTPDeviceInfo(decoding: reply.data ?? [])
        } catch {
            throw PTPIPError.protocolViolation(peer: address, detail: "unreadable DeviceInfo: \(error)")
        }
    }

    /// One operation, repeated while the camera answers DeviceBusy (up to `busyBudget`). The
    /// answer to an operation the body does not list is remembered (``OperationSupport``).
    func call(
        _ code: PTPOperationCode, _ parameters: [UInt32] = [], dataOut: [UInt8]? = nil,
        dataIn: PTPIPDataIn = .none, timeout: Double? = nil
    ) throws(PTPIPError) -> PTPIPReply {
        let reply = try Self.retryingBusy(stop: stop, counting: &busyAnswers) { () throws(PTPIPError) in
            try client.transaction(code, parameters, dataOut: dataOut, dataIn: dataIn, timeout: timeout)
        }
        operations.record(code, answered: reply.code)
        return reply
    }

    /// Whether the body answers `code`: its DeviceInfo lists it, or it answered when asked.
    func supports(_ code: PTPOperationCode) -> Bool { operations.supports(code) }

    /// Whether a dialect that would like `code` may send it: known to work, or not asked yet in
    /// this session (see ``OperationSupport``).
    func mayTry(_ code: PTPOperationCode) -> Bool { operations.mayTry(code) }

    /// An unlisted operation that answered an error: not asked again in this session.
    func giveUp(_ code: PTPOperationCode) { operations.giveUp(code) }

    /// Operations the body names outside DeviceInfo (Nikon's GetVendorCodes) count as listed.
    func learnNamedCodes(_ codes: [UInt32]) -> [UInt16] { operations.learnNamed(codes) }

    /// `call` whose answer must be OK; data is collected into memory.
    func data(_ code: PTPOperationCode, _ parameters: [UInt32] = []) throws(PTPIPError) -> [UInt8] {
        let reply = try call(code, parameters, dataIn: .collect(limit: Self.collectLimit))
        try Self.requireOK(reply, code, address: address)
        return reply.data ?? []
    }

    /// `call` whose answer must be OK.
    func perform(_ code: PTPOperationCode, _ parameters: [UInt32] = []) throws(PTPIPError) {
        try Self.requireOK(try call(code, parameters), code, address: address)
    }

    static func requireOK(_ reply: PTPIPReply, _ code: PTPOperationCode, address: String) throws(PTPIPError) {
        guard reply.code.isOK else { throw .operationFailed(peer: address, operation: code, response: reply.code) }
    }

    private static func retryingBusy(
        stop: StopFlag, counting busy: inout Int,
        _ attempt: () throws(PTPIPError) -> PTPIPReply
    ) throws(PTPIPError) -> PTPIPReply {
        let started = ProcessInfo.processInfo.systemUptime
        var tries = 0
        while true {
            let reply = try attempt()
            guard reply.code == .deviceBusy,
                ProcessInfo.processInfo.systemUptime - started < busyBudget,
                !stop.isStopped
            else { return reply }
            busy += 1
            if stop.sleep(busyBackoff.ceiling(attempt: tries)) { throw .interrupted }
            tries += 1
        }
    }
}
