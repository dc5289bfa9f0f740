import Foundation
import PTPIP
import PTPWire

/// The tether's own PTP/IP client, as the simulator tests use it: connected to a local
/// simulator, operations named by their raw codes, data collected into memory.
extension PTPIPClient {
    static let testTimeout = 30.0

    /// Connects to the simulator on `port` (handshake and event channel, no session yet).
    static func connect(toSimulatorOn port: UInt16) throws -> PTPIPClient {
        try connect(
            PTPIPClientOptions(
                host: "127.0.0.1", port: port, guid: Array(repeating: 7, count: 16),
                friendlyName: "relay-test", ioTimeout: testTimeout))
    }

    /// One operation by raw code, its data (if any) collected.
    func call(_ code: UInt16, _ parameters: [UInt32] = []) throws -> (response: PTPOperationResponse, data: [UInt8]?) {
        let reply = try transaction(PTPOperationCode(code), parameters, dataIn: .collect(limit: 64 << 20))
        return (reply.response, reply.data)
    }

    /// The next event on the event channel within `timeout`, nil if none came.
    func nextEvent(timeout: Double) throws -> PTPEvent? {
        try events(timeout: timeout).first
    }
}
