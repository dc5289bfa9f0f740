import Dispatch
import FTPWire
import Foundation
import Intake
import RelayCore
import RunEvents
import SocketIO
import Spool

/// `relay run --ftp`: an FTP server cameras upload to with their own FTP client, each photo going
/// straight into the spool (see ``FTPUploadStore``). One thread accepts; each control connection
/// gets its own thread, up to `maxSessions` (and `maxSessionsPerAddress` from one address).
///
/// `@unchecked Sendable`: built on one thread, then run by one (a TCPListener is not Sendable).
public final class FTPSource: PhotoSource, @unchecked Sendable {
    public let options: FTPReceiverOptions
    private let listener: TCPListener
    private let spool: Spool
    private let store: FTPUploadStore
    private let tls: TLSContext?
    private let report: SourceReporter
    /// The sessions being served, by identity.
    private let sessions = LockedBox<[ObjectIdentifier: FTPSession]>([:])

    /// The port actually listened on (the one given, or the system's pick for port 0).
    public var port: UInt16 { listener.port }
    public var label: String { "ftp \(options.host):\(listener.port)" }
    /// The SHA-256 fingerprint of the FTPS certificate, nil when FTPS is off.
    public var tlsFingerprint: String? { tls?.fingerprint }

    /// Binds the port (and, with FTPS, loads or makes the certificate) at once, so a taken port
    /// stops `relay run` before anything moves.
    public init(options: FTPReceiverOptions, spool: Spool, home: RelayHome, report: SourceReporter) throws(FTPReceiverError) {
        guard !options.accounts.isEmpty else { throw .noUsers }
        self.options = options
        self.spool = spool
        self.report = report
        store = try FTPUploadStore(home: home, spool: spool)
        tls = options.tls == .off ? nil : try TLSContext(home: home)
        do {
            listener = try TCPListener(host: options.host, port: options.port, backlog: 16)
        } catch {
            throw .cannotListen(address: "\(options.host):\(options.port)", reason: "\(error)")
        }
    }

    /// The SHA-256 fingerprint of the FTPS certificate in `home` (made now if there is none yet),
    /// for `relay ftp-setup`.
    public static func certificateFingerprint(home: RelayHome) throws(FTPReceiverError) -> String {
        try TLSContext(home: home).fingerprint
    }

    public func run(until stop: StopFlag) {
        let context = FTPReceiverContext(
            options: options, store: store, spool: spool, loginGuard: LoginGuard(), tls: tls, stop: stop, report: report)
        report(
            .info(
                "ftp: listening on \(options.host):\(listener.port) for \(options.accounts.map(\.name).joined(separator: ", "))\n"
                    + FTPSetupText.make(
                        options: options, port: listener.port, addresses: options.setupAddresses, tlsFingerprint: tls?.fingerprint)))
        if let clear = options.cleartextWarning { report(.warning(clear)) }
        let done = DispatchGroup()
        var lastSweep = Date.distantPast
        while !stop.isStopped {
            if Date().timeIntervalSince(lastSweep) >= min(60, options.partialKeepSeconds / 2) {
                lastSweep = Date()
                for path in store.discardPartials(olderThan: options.partialKeepSeconds) {
                    report(
                        .info("ftp: discarded the unfinished upload of \(path) (not resumed within \(Int(options.partialKeepSeconds)) s)"))
                }
            }
            let connection: TCPConnection
            do {
                guard let accepted = try listener.accept(timeout: 0.5) else { continue }
                connection = accepted
            } catch {
                report(.warning("ftp: \(error)"))
                stop.sleep(1)
                continue
            }
            let session = FTPSession(control: connection, context: context)
            let refusal = sessions.withLockedValue { sessions -> String? in
                if let refusal = options.refusal(of: session.clientHost, openHosts: sessions.values.map(\.clientHost)) { return refusal }
                sessions[ObjectIdentifier(session)] = session
                return nil
            }
            if let refusal {
                try? connection.write(FTPReply(421, "too many connections: try again in a moment").encoded, timeout: 2)
                connection.close()
                report(.warning("ftp: connection from \(connection.peer) refused: \(refusal)"))
                continue
            }
            done.enter()
            Thread.detachNewThread { [self] in
                session.serve()
                _ = sessions.withLockedValue { $0.removeValue(forKey: ObjectIdentifier(session)) }
                done.leave()
            }
        }
        listener.close()
        for session in sessions.withLockedValue({ Array($0.values) }) { session.interrupt() }
        _ = done.wait(timeout: .now() + 10)
    }
}

extension FTPReceiverOptions: SourceSetting {
    public var label: String { "ftp \(host):\(port)" }

    public func makeSource(spool: Spool, home: RelayHome, report: SourceReporter) throws -> any PhotoSource {
        try FTPSource(options: self, spool: spool, home: home, report: report)
    }
}
