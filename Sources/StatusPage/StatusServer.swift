import CMicroHTTPD
import Foundation
import RunEvents

/// Serves the status page, `/status.json`, `/metrics`, `/healthz` and thumbnails over HTTP with
/// libmicrohttpd, from the run's events: it follows the bus and never reads the spool or the
/// pipeline. Answers come from `StatusRouter`; this class only moves bytes.
///
/// `@unchecked Sendable`: `daemon` is set in `start` before the server is handed out, then taken under `lock` by `stop()`.
public final class StatusServer: @unchecked Sendable {
    /// Where it listens, with the port actually bound.
    public let address: StatusAddress
    private let router: StatusRouter
    private let live: LiveRunState
    private let thumbnails: ThumbnailStore
    private let lock = NSLock()
    private var daemon: OpaquePointer?

    /// Phones and a scraper or two; more wait for the system to accept them.
    static let connectionLimit: UInt32 = 32
    /// An idle connection is closed after this long.
    static let connectionTimeout: UInt32 = 15

    /// Starts serving `bus`'s run at `options.address`. Start it before the run publishes its
    /// first event, so that the page sees the run from its start.
    public static func start(_ options: StatusOptions, bus: RunEventBus) throws(StatusServerError) -> StatusServer {
        let socket = try ListenSocket.open(options.address)
        let thumbnails: ThumbnailStore
        do { thumbnails = try ThumbnailStore() } catch {
            close(socket.descriptor)
            throw .cannotListen(socket.address, "no scratch folder for thumbnails: \(error.localizedDescription)")
        }
        let server = StatusServer(
            address: socket.address, router: StatusRouter(token: options.token),
            live: LiveRunState(following: bus), thumbnails: thumbnails)
        bus.subscribeInline { [thumbnails] event in thumbnails.observe(event) }
        let context = Unmanaged.passUnretained(server).toOpaque()
        guard let daemon = relay_mhd_start(socket.descriptor, connectionLimit, connectionTimeout, StatusServer.handle, context) else {
            close(socket.descriptor)
            thumbnails.stop()
            throw .serverFailed(socket.address)
        }
        server.daemon = daemon
        return server
    }

    private init(address: StatusAddress, router: StatusRouter, live: LiveRunState, thumbnails: ThumbnailStore) {
        self.address = address
        self.router = router
        self.live = live
        self.thumbnails = thumbnails
    }

    deinit { stop() }

    /// Closes the listening socket and every connection, and ends the thumbnail thread. Safe to
    /// call more than once.
    public func stop() {
        let daemon = lock.withLock { () -> OpaquePointer? in
            defer { self.daemon = nil }
            return self.daemon
        }
        guard let daemon else { return }
        MHD_stop_daemon(daemon)
        thumbnails.stop()
    }

    /// Waits until every photo spooled so far has its thumbnail made or given up (tests).
    func waitForThumbnails() {
        thumbnails.drain()
    }

    private func snapshot() -> StatusSnapshot {
        StatusSnapshot(state: live.snapshot, now: Date(), thumbnails: thumbnails.snapshot)
    }

    /// libmicrohttpd's request callback, on its polling thread: every request is a GET (or
    /// refused) without a body, so it is answered on the first call.
    private static let handle: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, _, _ in
        guard let context, let connection, let url, let method else { return .NO }
        let server = Unmanaged<StatusServer>.fromOpaque(context).takeUnretainedValue()
        func value(_ kind: MHD_ValueKind, _ key: String) -> String? {
            MHD_lookup_connection_value(connection, kind, key).map { String(cString: $0) }
        }
        let request = StatusRequest(
            method: String(cString: method), path: String(cString: url),
            tokenParameter: value(.GET_ARGUMENT_KIND, "token"),
            authorization: value(.HEADER_KIND, "Authorization"))
        let answer = server.router.respond(to: request, snapshot: server.snapshot)
        let response = answer.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Content-Type", answer.contentType)
        MHD_add_response_header(response, "Cache-Control", "no-store")
        for (name, value) in answer.headers { MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, UInt32(answer.status), response)
    }
}
