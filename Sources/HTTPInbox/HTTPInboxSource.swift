import CMicroHTTPD
import Foundation
import Intake
import RelayCore
import RunEvents
import SocketIO
import Spool

/// `relay run --http`: an HTTP inbox that other relays, phones (Camera2URL) and scripts send
/// photos to, each answered 201 only once it is committed to the spool and fsynced. It takes
/// `POST /upload` as `multipart/form-data` (the part with a file name is the photo, a `note` part
/// its note) and `PUT /upload/NAME` with the bare photo, from a login's `Bearer` token or Basic
/// `NAME:TOKEN`. libmicrohttpd serves the connections (one thread each); ``InboxUpload`` takes
/// each request's photo into the spool, ``InboxReceipts`` remembers what was answered.
///
/// `@unchecked Sendable`: built on one thread, then run by one (a TCPListener is not Sendable);
/// libmicrohttpd's threads read only its immutable context.
public final class HTTPInboxSource: PhotoSource, @unchecked Sendable {
    public let options: HTTPInboxOptions
    private let listener: TCPListener
    private let context: InboxContext

    /// The port actually listened on (the one given, or the system's pick for port 0).
    public var port: UInt16 { listener.port }
    public var label: String { "http \(options.host):\(listener.port)" }

    /// Binds the port at once, so that a taken port stops `relay run` before anything moves.
    public init(options: HTTPInboxOptions, spool: Spool, home: RelayHome, report: SourceReporter) throws(HTTPInboxError) {
        guard !options.logins.isEmpty else { throw .noUsers }
        self.options = options
        let receiptsURL = home.root.appendingPathComponent("http/receipts.jsonl")
        let receipts: InboxReceipts
        do { receipts = try InboxReceipts(url: receiptsURL) } catch {
            throw .state(path: receiptsURL.path, reason: error.description)
        }
        context = InboxContext(options: options, spool: spool, receipts: receipts, report: report)
        do {
            listener = try TCPListener(host: options.host, port: options.port, backlog: 32)
        } catch {
            throw .cannotListen(address: "\(options.host):\(options.port)", reason: "\(error)")
        }
    }

    public func run(until stop: StopFlag) {
        let address = "\(options.host):\(listener.port)"
        let failed = HTTPInboxError.serverFailed(address: address).description
        guard let fd = try? listener.handOver() else { return context.report(.unusable(failed)) }
        guard
            let started = relay_mhd_start_threaded(
                fd, UInt32(options.maxSessions), UInt32(options.effectiveSessionsPerAddress), UInt32(options.idleSeconds),
                Self.handle, Unmanaged.passUnretained(self).toOpaque(), Self.completed)
        else {
            close(fd)
            return context.report(.unusable(failed))
        }
        context.report(
            .info(
                "http: listening on \(address) for \(options.logins.map(\.name).joined(separator: ", ")) "
                    + "(POST \(InboxRequestRules.path) multipart, PUT \(InboxRequestRules.path)/NAME)"))
        if let clear = options.cleartextWarning { context.report(.warning(clear)) }
        while !stop.sleep(3600) {}
        // Stopping closes every connection: a request cut off this way keeps nothing.
        MHD_stop_daemon(started)
    }

    // MARK: - Requests

    /// The first call of a request (its headers): refused at once, answered from a receipt, or
    /// an upload that its body is fed to.
    private func begin(_ connection: OpaquePointer, method: String, path: String) -> Result<InboxUpload, Answer> {
        func header(_ name: String) -> String? {
            MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
        }
        let client = Self.clientAddress(connection)
        guard let login = HTTPInboxAuthorization.login(for: header("Authorization"), among: options.logins) else {
            let (count, delay) = context.loginGuard.failed(from: client)
            context.report(
                .warning(
                    "http: refused a request from \(client): no or wrong token (\(count) in a row; Authorization: Bearer TOKEN, "
                        + "or Basic NAME:TOKEN)"))
            // Only this connection's thread waits: a sender guessing tokens gets a few answers a second.
            Thread.sleep(forTimeInterval: delay)
            return .failure(.unauthorized)
        }
        context.loginGuard.succeeded(from: client)
        let shape: InboxRequestRules.Shape
        do { shape = try InboxRequestRules.shape(method: method, path: path) } catch { return .failure(.refusal(error)) }
        let key: String?
        do { key = try InboxRequestRules.idempotencyKey(header("Idempotency-Key")) } catch { return .failure(.refusal(error)) }
        if let length = header("Content-Length").flatMap({ Int64($0) }) {
            let cap = options.maxBodyBytes + (shape == .multipart ? 64 * 1024 : 0)
            if length > cap { return .failure(.refusal(InboxRequestRules.tooLarge(limit: options.maxBodyBytes))) }
        }
        if let key, let receipt = context.receipts.receipt(for: context.requestKey(login: login, idempotencyKey: key)) {
            context.report(
                .alreadyTaken(AlreadyTaken(fileName: receipt.name, matched: "\(login.name)'s Idempotency-Key \(key)", atStart: false)))
            return .failure(.repeated(receipt))
        }
        guard context.spool.hasRoom(forBytes: 1) else { return .failure(.refusal(InboxRequestRules.spoolFull)) }
        let upload = InboxUpload(login: login, shape: shape, idempotencyKey: key, client: client, context: context)
        if let key {
            let claim = context.requestKey(login: login, idempotencyKey: key)
            guard context.claim(claim) else {
                return .failure(
                    .refusal(
                        InboxRefusal(
                            503, "a request with this Idempotency-Key is being received on another connection: send it again in a moment")))
            }
            upload.claimedKey = claim
        }
        if shape == .multipart {
            let processor = MHD_create_post_processor(
                connection, 64 * 1024, Self.iterate, Unmanaged.passUnretained(upload).toOpaque())
            guard let processor else {
                if let claim = upload.claimedKey { context.release(claim) }
                return .failure(
                    .refusal(
                        InboxRefusal(415, "POST the photo as multipart/form-data (or PUT the bare JPEG to \(InboxRequestRules.path)/NAME)"))
                )
            }
            upload.processor = processor
        }
        return .success(upload)
    }

    /// A piece of the body.
    private func feed(_ upload: InboxUpload, _ data: UnsafeRawBufferPointer) {
        guard upload.refusal == nil else { return }
        if let processor = upload.processor {
            if MHD_post_process(processor, data.baseAddress?.assumingMemoryBound(to: CChar.self), data.count) != .YES {
                upload.refuse(upload.refusal ?? InboxRefusal(400, "the multipart body cannot be read"))
            }
        } else {
            upload.take(data)
        }
    }

    /// The body's end: the answer.
    private func finish(_ upload: InboxUpload) -> Answer {
        if let processor = upload.processor {
            upload.processor = nil
            if MHD_destroy_post_processor(processor) != .YES {
                upload.refuse(InboxRefusal(400, "the multipart body ends before its closing boundary"))
            }
        }
        switch upload.finish() {
        case .committed(let entry, let receipt):
            context.report.spooled(entry, in: context.spool)
            return .created(receipt)
        case .repeated(let receipt):
            upload.discard()
            context.report(
                .alreadyTaken(AlreadyTaken(fileName: receipt.name, matched: "\(upload.login.name)'s photo answered before", atStart: false))
            )
            return .repeated(receipt)
        case .refused(let refusal):
            upload.discard()
            return .refusal(refusal)
        }
    }

    /// What a request is answered.
    enum Answer: Error {
        case created(InboxReceipts.Receipt)
        case repeated(InboxReceipts.Receipt)
        case unauthorized
        case refusal(InboxRefusal)

        var status: Int {
            switch self {
            case .created: 201
            case .repeated: 200
            case .unauthorized: 401
            case .refusal(let refusal): refusal.status
            }
        }

        var body: Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            switch self {
            case .created(let receipt), .repeated(let receipt):
                return (try? encoder.encode(receipt)) ?? Data()
            case .unauthorized:
                return (try? encoder.encode(["error": "no or wrong token: send Authorization: Bearer TOKEN, or Basic NAME:TOKEN"]))
                    ?? Data()
            case .refusal(let refusal):
                return (try? encoder.encode(["error": refusal.message])) ?? Data()
            }
        }
    }

    private func log(_ upload: InboxUpload?, _ answer: Answer) {
        guard case .refusal(let refusal) = answer else { return }
        let who = upload.map { "\($0.login.name)@\($0.client)" } ?? "-"
        context.report(.warning("http \(who): refused (\(refusal.status)): \(refusal.message)"))
    }

    // MARK: - libmicrohttpd

    private static func queue(_ answer: Answer, on connection: OpaquePointer) -> MHD_Result {
        let body = answer.body
        let response = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        MHD_add_response_header(response, "Content-Type", "application/json")
        MHD_add_response_header(response, "Cache-Control", "no-store")
        if case .unauthorized = answer {
            MHD_add_response_header(response, "WWW-Authenticate", "Bearer realm=\"relay\", Basic realm=\"relay\"")
        }
        if answer.status == 503 { MHD_add_response_header(response, "Retry-After", "30") }
        return MHD_queue_response(connection, UInt32(answer.status), response)
    }

    private static func clientAddress(_ connection: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        relay_mhd_client_address(connection, &buffer, buffer.count)
        let text = String(cString: buffer)
        return text.isEmpty ? "?" : text
    }

    /// libmicrohttpd's request callback, on the connection's thread: the headers on the first
    /// call, the body over the calls that follow, the answer on the last one (or at once, for a
    /// refusal that needs no more of the body).
    private static let handle: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, state in
        guard let context, let connection, let url, let method, let state else { return .NO }
        let inbox = Unmanaged<HTTPInboxSource>.fromOpaque(context).takeUnretainedValue()
        guard let kept = state.pointee else {
            switch inbox.begin(connection, method: String(cString: method), path: String(cString: url)) {
            case .success(let upload):
                state.pointee = Unmanaged.passRetained(upload).toOpaque()
                return .YES
            case .failure(let answer):
                inbox.log(nil, answer)
                return queue(answer, on: connection)
            }
        }
        let upload = Unmanaged<InboxUpload>.fromOpaque(kept).takeUnretainedValue()
        if let size, size.pointee > 0 {
            if !upload.answered, let data { inbox.feed(upload, UnsafeRawBufferPointer(start: data, count: size.pointee)) }
            size.pointee = 0
            // A body refused as it arrives is read to its end and dropped, then answered (an
            // answer queued mid-body reaches no client); one too large is answered at once.
            guard !upload.answered, let refusal = upload.refusal, refusal.status == 413 else { return .YES }
            upload.answered = true
            upload.discard()
            inbox.log(upload, .refusal(refusal))
            return queue(.refusal(refusal), on: connection)
        }
        guard !upload.answered else { return .YES }
        upload.answered = true
        let answer = inbox.finish(upload)
        inbox.log(upload, answer)
        return queue(answer, on: connection)
    }

    /// libmicrohttpd's multipart parser's callback: one piece of one part.
    private static let iterate: MHD_PostDataIterator = { context, _, key, fileName, _, _, data, offset, size in
        guard let context else { return .NO }
        let upload = Unmanaged<InboxUpload>.fromOpaque(context).takeUnretainedValue()
        upload.part(
            key: key.map { String(cString: $0) } ?? "", fileName: fileName.map { String(cString: $0) }, offset: offset,
            data: UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
        return upload.refusal == nil ? .YES : .NO
    }

    /// libmicrohttpd's end-of-request callback, however the request ended: a photo not
    /// committed (a cut-off request, a refusal) is dropped, its key released.
    private static let completed: MHD_RequestCompletedCallback = { context, _, state, _ in
        guard let state, let kept = state.pointee else { return }
        let upload = Unmanaged<InboxUpload>.fromOpaque(kept).takeRetainedValue()
        state.pointee = nil
        if let processor = upload.processor {
            upload.processor = nil
            MHD_destroy_post_processor(processor)
        }
        upload.discard()
        if let claim = upload.claimedKey { upload.context.release(claim) }
    }
}
