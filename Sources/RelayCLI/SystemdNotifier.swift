import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// systemd's service notification (`Type=notify`, `WatchdogSec=`): datagrams such as `READY=1`
/// sent to the socket named by `$NOTIFY_SOCKET` (see sd_notify(3); the protocol is a plain
/// `KEY=VALUE` datagram, which is why relay sends it itself instead of linking libsystemd).
/// Without `$NOTIFY_SOCKET` (not run by systemd) there is no notifier.
///
final class SystemdNotifier: Sendable {
    private let address: sockaddr_un
    private let addressLength: socklen_t
    private let descriptor: Int32
    /// How often systemd wants a `WATCHDOG=1` (half its `WatchdogSec=`), when it wants any.
    let watchdogInterval: TimeInterval?
    /// When the watchdog was last petted and the status last said.
    private let last = LockedBox((ping: Date.distantPast, status: Date.distantPast))

    init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty, path.utf8.count < 108 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // A leading '@' names a socket in the abstract namespace: a NUL byte there.
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        self.address = address
        addressLength = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + bytes.count)
        #if canImport(Glibc)
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            descriptor = socket(AF_UNIX, SOCK_DGRAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if pidMatches, let text = environment["WATCHDOG_USEC"], let microseconds = Double(text), microseconds > 0 {
            watchdogInterval = microseconds / 2_000_000
        } else {
            watchdogInterval = nil
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends one notification (`READY=1`, `STOPPING=1`, `STATUS=…`); a lost one is not retried.
    func send(_ message: String) {
        var target = address
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, addressLength)
            }
        }
    }

    /// Called by the run's main loop each turn: pets the watchdog when due, and says what the run
    /// is doing every few seconds (`systemctl status` shows it).
    func heartbeat(status: @autoclosure () -> String) {
        let now = Date()
        var messages: [String] = []
        last.withLockedValue { last in
            if let interval = watchdogInterval, now.timeIntervalSince(last.ping) >= interval {
                last.ping = now
                messages.append("WATCHDOG=1")
            }
            if now.timeIntervalSince(last.status) >= 5 {
                last.status = now
                messages.append("STATUS=" + status())
            }
        }
        for message in messages { send(message) }
    }
}
