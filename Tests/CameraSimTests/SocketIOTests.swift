import Foundation
import SocketIO
import XCTest

/// SocketIO against real sockets on the loopback interface (the simulator and the tether both
/// build on it, so its errors must say what happened).
final class SocketIOTests: XCTestCase {
    func testListenerOnPortZeroReportsItsPortAndConnectionsCarryBytesBothWays() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        XCTAssertNotEqual(listener.port, 0)
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 30)
        let server = try XCTUnwrap(try listener.accept(timeout: 30))
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let writer = Thread { try? client.write(payload, timeout: 30) }
        writer.start()
        XCTAssertEqual(try server.readExactly(payload.count, timeout: 30), payload)
        try server.write([1, 2, 3], timeout: 30)
        XCTAssertEqual(try client.readExactly(3, timeout: 30), [1, 2, 3])
    }

    func testConnectToAClosedPortIsRefusedWithTheSystemReason() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        let port = listener.port
        listener.close()
        XCTAssertThrowsError(try TCPConnection.connect(host: "127.0.0.1", port: port, timeout: 30)) { error in
            XCTAssertEqual((error as? SocketError)?.errnoValue, ECONNREFUSED, "\(error)")
            XCTAssertTrue("\(error)".contains("127.0.0.1:\(port)"), "\(error)")
        }
    }

    func testReadTimesOutWhenThePeerSaysNothing() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 30)
        let server = try XCTUnwrap(try listener.accept(timeout: 30))
        XCTAssertThrowsError(try client.readSome(maxCount: 10, timeout: 0.2)) { error in
            guard case .timedOut? = error as? SocketError else { return XCTFail("\(error)") }
        }
        server.close()
    }

    func testEndOfStreamMidReadIsClosedByPeer() throws {
        let listener = try TCPListener(host: "127.0.0.1", port: 0)
        defer { listener.close() }
        let client = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeout: 30)
        let server = try XCTUnwrap(try listener.accept(timeout: 30))
        try server.write([9, 9], timeout: 30)
        server.close()
        XCTAssertThrowsError(try client.readExactly(4, timeout: 30)) { error in
            XCTAssertEqual(error as? SocketError, .closedByPeer(peer: client.peer))
        }
        client.close()
        XCTAssertThrowsError(try client.readSome(maxCount: 1, timeout: 1)) { error in
            XCTAssertEqual(error as? SocketError, .closed)
        }
    }

    func testUnknownHostIsAResolveError() {
        XCTAssertThrowsError(try TCPConnection.connect(host: "no-such-host.invalid", port: 1, timeout: 30)) { error in
            guard case .cannotResolve? = error as? SocketError else { return XCTFail("\(error)") }
        }
    }
}
