import CMicroHTTPD
import Foundation
import RelayCore
import RunEvents

/// Serves the status page, `/status.json`, `/metrics`, `/healthz` and thumbnails over HTTP with
/// libmicrohttpd, from the run's events: it follows the bus and never reads the spool or the
/// pipeline. The editor's page (`/review`) reads and decides through the ``ReviewDesk`` the run
/// attaches. Answers come from `StatusRouter`; this class only moves bytes.
///
/// `@unchecked Sendable`: `daemon` is reachable only in its box (set in `start` before the server is handed out, taken
/// by `stop()`), which the compiler cannot call Sendable because libmicrohttpd's handle is an `OpaquePointer`.
public final class StatusServer: @unchecked Sendable {
    /// Where it listens, with the port actually bound.
    public let address: StatusAddress
    /// The editor's page's token (`/review`), if it serves one.
    public var editorToken: String? { router.editorToken }
    /// The venue wall's token (`/wall`), if it serves one.
    public var wallToken: String? { router.wall?.token }
    private let router: StatusRouter
    private let live: LiveRunState
    private let thumbnails: ThumbnailStore
    private let reviewThumbnails: ReviewThumbnails?
    private let loupe: LoupePictures?
    private let wall: WallStore?
    private let desk = LockedBox<ReviewDesk?>(nil)
    /// libmicrohttpd's daemon while it runs; nil before `start` sets it and once `stop()` took it.
    private let daemon = LockedBox<OpaquePointer?>(nil)

    /// Phones and a scraper or two; more wait for the system to accept them.
    static let connectionLimit: UInt32 = 32
    /// An idle connection is closed after this long.
    static let connectionTimeout: UInt32 = 15
    /// Threads answering requests: a review thumbnail being made holds up only its own.
    static let threads: UInt32 = 4

    /// Starts serving `bus`'s run at `options.address`. Start it before the run publishes its
    /// first event, so that the page sees the run from its start.
    public static func start(_ options: StatusOptions, bus: RunEventBus) throws(StatusServerError) -> StatusServer {
        let socket = try ListenSocket.open(options.address)
        let thumbnails: ThumbnailStore
        do { thumbnails = try ThumbnailStore() } catch {
            close(socket.descriptor)
            throw .cannotListen(socket.address, "no scratch folder for thumbnails: \(error.localizedDescription)")
        }
        let reviewThumbnails = options.editorToken == nil ? nil : try? ReviewThumbnails()
        let wall = options.wallToken == nil ? nil : try? WallStore()
        let server = StatusServer(
            address: socket.address,
            router: StatusRouter(
                token: options.token, editorToken: options.editorToken,
                wall: (wall == nil ? nil : options.wallToken).map { ($0, options.guestLink) }, wallOptions: options.wall),
            live: LiveRunState(following: bus), thumbnails: thumbnails, reviewThumbnails: reviewThumbnails,
            loupe: options.editorToken == nil ? nil : LoupePictures(), wall: wall)
        bus.subscribeInline { [thumbnails] event in thumbnails.observe(event) }
        if let wall { bus.subscribeInline { event in wall.observe(event) } }
        let context = Unmanaged.passUnretained(server).toOpaque()
        guard
            let daemon = relay_mhd_start(
                socket.descriptor, connectionLimit, connectionTimeout, threads, StatusServer.handle, context, StatusServer.completed)
        else {
            close(socket.descriptor)
            thumbnails.stop()
            reviewThumbnails?.stop()
            wall?.stop()
            throw .serverFailed(socket.address)
        }
        server.daemon.withLockedValue { $0 = daemon }
        return server
    }

    private init(
        address: StatusAddress, router: StatusRouter, live: LiveRunState, thumbnails: ThumbnailStore, reviewThumbnails: ReviewThumbnails?,
        loupe: LoupePictures?, wall: WallStore?
    ) {
        self.address = address
        self.router = router
        self.live = live
        self.thumbnails = thumbnails
        self.reviewThumbnails = reviewThumbnails
        self.loupe = loupe
        self.wall = wall
    }

    /// Hands the editor's page what it reads and decides through, once the run applied the
    /// decisions made while it was stopped (until then it answers 503). `holding`: the labels of
    /// the destinations that hold photos for review; when there are any, the wall shows only
    /// photos delivered to them, made from the files handed to the returned sink as photos are
    /// approved (and from spooled photos when one of them `selects` in the camera).
    @discardableResult
    public func attach(_ desk: ReviewDesk, holding: Set<String>, selects: Bool) -> (
        @Sendable (_ id: String, _ name: String, _ photographer: String?, _ file: Int32) -> Void
    )? {
        self.desk.withLockedValue { $0 = desk }
        guard !holding.isEmpty, let wall else { return nil }
        wall.showOnly(deliveredTo: holding, spooled: selects)
        return { id, name, photographer, file in wall.offer(id: id, name: name, photographer: photographer, file: file) }
    }

    /// Gives the wall each photo's caption (the editor's), shown with `--wall-credit`.
    public func describeWall(
        with lookup: @escaping @Sendable (_ id: String) -> String?, changes: @escaping @Sendable () -> Int = { 0 }
    ) {
        wall?.describe(with: lookup, changes: changes)
    }

    deinit { stop() }

    /// Closes the listening socket and every connection, and ends the thumbnail thread. Safe to
    /// call more than once.
    public func stop() {
        let daemon = self.daemon.withLockedValue { (held: inout OpaquePointer?) -> OpaquePointer? in
            defer { held = nil }
            return held
        }
        guard let daemon else { return }
        MHD_stop_daemon(daemon)
        thumbnails.stop()
        reviewThumbnails?.stop()
        wall?.stop()
    }

    /// Waits until every photo spooled so far has its thumbnail made or given up (tests).
    func waitForThumbnails() {
        thumbnails.drain()
    }

    private func snapshot() -> StatusSnapshot {
        StatusSnapshot(state: live.snapshot, now: Date(), thumbnails: thumbnails.snapshot)
    }

    /// A POST's body as it arrives, kept for its connection between the handler's calls.
    private final class Body {
        var bytes: [UInt8] = []
        var tooLarge = false
    }

    /// libmicrohttpd's request callback, on one of its threads. A GET is answered on the first
    /// call; a POST's body arrives over the calls that follow (kept in a ``Body`` that
    /// `completed` frees) and is answered on the last, with no more data.
    private static let handle: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, state in
        guard let context, let connection, let url, let method, let state else { return .NO }
        let server = Unmanaged<StatusServer>.fromOpaque(context).takeUnretainedValue()
        let verb = String(cString: method)
        var body: [UInt8] = []
        if verb == "POST" {
            guard let kept = state.pointee else {
                state.pointee = Unmanaged.passRetained(Body()).toOpaque()
                return .YES
            }
            let buffer = Unmanaged<Body>.fromOpaque(kept).takeUnretainedValue()
            if let size, size.pointee > 0 {
                if let data, buffer.bytes.count + size.pointee <= ReviewRouter.bodyLimit {
                    buffer.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size.pointee))
                } else {
                    buffer.tooLarge = true
                }
                size.pointee = 0
                return .YES
            }
            body = buffer.tooLarge ? Array(repeating: 0, count: ReviewRouter.bodyLimit + 1) : buffer.bytes
        }
        func value(_ kind: MHD_ValueKind, _ key: String) -> String? {
            MHD_lookup_connection_value(connection, kind, key).map { String(cString: $0) }
        }
        var arguments: [String: String] = [:]
        // The list's paging and filter; the loupe's screen width and pixel ratio, a crop's centre and size.
        for key in ["offset", "limit", "since"] + ReviewFilter.argumentNames + ["w", "dpr", "x", "y", "h"] {
            arguments[key] = value(.GET_ARGUMENT_KIND, key)
        }
        let request = StatusRequest(
            method: verb, path: String(cString: url), tokenParameter: value(.GET_ARGUMENT_KIND, "token"),
            authorization: value(.HEADER_KIND, "Authorization"), arguments: arguments, body: body)
        let answer = server.router.respond(
            to: request, snapshot: server.snapshot, desk: server.desk.withLockedValue { $0 }, reviewThumbnails: server.reviewThumbnails,
            wallStore: server.wall, loupe: server.loupe)
        let response = answer.body.withUnsafeBytes { body in
            MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: body.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Content-Type", answer.contentType)
        if answer.headers["Cache-Control"] == nil { MHD_add_response_header(response, "Cache-Control", "no-store") }
        for (name, value) in answer.headers { MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, UInt32(answer.status), response)
    }

    /// libmicrohttpd's end-of-request callback: frees a POST's ``Body``.
    private static let completed: MHD_RequestCompletedCallback = { _, _, state, _ in
        guard let state, let kept = state.pointee else { return }
        Unmanaged<Body>.fromOpaque(kept).release()
        state.pointee = nil
    }
}
