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
    let deviceInfo: PTPDeviceInfo
    let dialect: CameraDialect
    private let stop: StopFlag
    /// DeviceBusy answers retried in this session.
    private(set) var busyAnswers = 0

    /// Longest time one operation is retried while the camera answers DeviceBusy.
    static let busyBudget = 30.0
    /// Waits between busy retries: 50 ms doubling up to 1 s.
    static let busyBackoff = Backoff(base: 0.05, cap: 1)
    /// Longest data phase collected into memory (datasets and event lists; photos are streamed).
    static let collectLimit = 16 << 20

    private init(client: PTPIPClient, deviceInfo: PTPDeviceInfo, stop: StopFlag, busyAnswers: Int) {
        self.client = client
        self.deviceInfo = deviceInfo
        self.stop = stop
        self.busyAnswers = busyAnswers
        dialect = CameraDialect.of(deviceInfo)
    }

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
    static func open(_ options: PTPIPClientOptions, stop: StopFlag,
                     interrupt: @escaping @Sendable () -> Bool) throws(PTPIPError) -> CameraSession {
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
            try requireOK(reply, .getDeviceInfo, address: options.address)
            let info: PTPDeviceInfo
            do {
                info = try PTPDeviceInfo(decoding: reply.data ?? [])
            } catch {
                throw PTPIPError.protocolViolation(peer: options.address, detail: "unreadable DeviceInfo: \(error)")
            }
            if let body = UnsupportedCamera.recognise(manufacturer: info.manufacturer, model: info.model) { throw body.error(peer: options.address) }
            return CameraSession(client: client, deviceInfo: info, stop: stop, busyAnswers: busy)
        } catch {
            client.close()
            throw error
        }
    }

    /// One operation, repeated while the camera answers DeviceBusy (up to `busyBudget`).
    func call(_ code: PTPOperationCode, _ parameters: [UInt32] = [], dataIn: PTPIPDataIn = .none,
              timeout: Double? = nil) throws(PTPIPError) -> PTPIPReply {
        try Self.retryingBusy(stop: stop, counting: &busyAnswers) { () throws(PTPIPError) in
            try client.transaction(code, parameters, dataIn: dataIn, timeout: timeout)
        }
    }

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

    private static func retryingBusy(stop: StopFlag, counting busy: inout Int,
                                     _ attempt: () throws(PTPIPError) -> PTPIPReply) throws(PTPIPError) -> PTPIPReply {
        let started = ProcessInfo.processInfo.systemUptime
        var tries = 0
        while true {
            let reply = try attempt()
            guard reply.code == .deviceBusy,
                  ProcessInfo.processInfo.systemUptime - started < busyBudget,
                  !stop.isStopped else { return reply }
            busy += 1
            if stop.sleep(busyBackoff.ceiling(attempt: tries)) { throw .interrupted }
            tries += 1
        }
    }
}
