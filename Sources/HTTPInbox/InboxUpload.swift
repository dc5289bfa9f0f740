import Foundation
import Intake
import RelayCore
import Spool

/// One request's photo on its way into the spool, from its headers to its answer. It lives on
/// the one libmicrohttpd thread that serves its connection; the photo is written into the
/// spool's `.incoming/` as it arrives (where a restart discards it) and committed only at the
/// request's end, once it is whole.
///
/// `@unchecked Sendable`: created, fed and finished by its connection's thread only.
final class InboxUpload: @unchecked Sendable {
    let login: HTTPInboxLogin
    let shape: InboxRequestRules.Shape
    let idempotencyKey: String?
    let client: String
    let context: InboxContext
    /// The claim on its Idempotency-Key while it runs (released when the request ends).
    var claimedKey: String?
    /// The multipart parser (libmicrohttpd's), for a POST.
    var processor: OpaquePointer?
    /// The first refusal, once one is decided: nothing more of the body is kept.
    private(set) var refusal: InboxRefusal?
    /// Whether an answer was queued already (a refusal as the body arrived).
    var answered = false
    private(set) var fileName: String?
    private(set) var note = ""
    /// The body's first bytes, until they say what it is.
    private var head: [UInt8] = []
    private(set) var kind: InboxRequestRules.Kind?
    private(set) var incoming: IncomingPhoto?
    private let digest = ContentDigest()
    private(set) var bytes: Int64 = 0
    /// Whether the file part ended (a part after it is a second photo).
    private var fileEnded = false
    private var fileKey: String?

    /// The longest note kept; the rest is cut.
    static let noteLimit = 4096

    init(login: HTTPInboxLogin, shape: InboxRequestRules.Shape, idempotencyKey: String?, client: String, context: InboxContext) {
        self.context = context
        self.login = login
        self.shape = shape
        self.idempotencyKey = idempotencyKey
        self.client = client
        if case .bare(let name) = shape { fileName = name }
    }

    func refuse(_ refusal: InboxRefusal) {
        if self.refusal == nil { self.refusal = refusal }
    }

    /// A piece of a multipart body's part, as libmicrohttpd's parser hands it over.
    func part(key: String, fileName partName: String?, offset: UInt64, data: UnsafeRawBufferPointer) {
        guard refusal == nil else { return }
        guard let partName else {
            if key == "note", note.utf8.count < Self.noteLimit {
                note += String(decoding: data.prefix(Self.noteLimit - note.utf8.count), as: UTF8.self)
            }
            return
        }
        if fileName != nil && (offset == 0 && (bytes > 0 || !head.isEmpty) || fileKey != key) {
            fileEnded = true
        }
        if fileEnded {
            return refuse(InboxRefusal(400, "one photo per request: the body has a second file part"))
        }
        if fileName == nil {
            do { fileName = try InboxRequestRules.fileName(partName) } catch { return refuse(error) }
            fileKey = key
        }
        take(data)
    }

    /// The next bytes of the photo.
    func take(_ data: UnsafeRawBufferPointer) {
        guard refusal == nil, !data.isEmpty else { return }
        if bytes + Int64(data.count) > context.options.maxBodyBytes {
            return refuse(InboxRequestRules.tooLarge(limit: context.options.maxBodyBytes))
        }
        bytes += Int64(data.count)
        digest?.feed(data)
        if incoming == nil {
            head += data
            guard head.count >= InboxRequestRules.signatureBytes else { return }
            begin()
            return
        }
        write(Array(data))
    }

    /// Decides what the body is from its first bytes and starts writing it into the spool.
    private func begin() {
        let name = fileName ?? "photo.jpg"
        do {
            kind = try InboxRequestRules.accept(InboxRequestRules.kind(of: head), name: name, includeRAW: context.options.includeRAW)
        } catch {
            return refuse(error)
        }
        var identity = PhotoIdentity(
            source: "http:\(login.name)", fileName: context.uploadName(InboxRequestRules.spoolName(name, kind: kind ?? .jpeg), by: login),
            bytes: 0, capturedAt: Date(),
            uniqueKey: "\(login.name)|" + (idempotencyKey.map { "idem:\($0)" } ?? "request:\(UUID().uuidString)"))
        identity.photographer = login.name
        do {
            incoming = try context.spool.beginIngest(identity)
        } catch {
            return refuse(InboxRefusal(error.isDiskFull ? 507 : 500, "relay could not write the photo: \(error)"))
        }
        let first = head
        head = []
        write(first)
    }

    private func write(_ chunk: [UInt8]) {
        guard let incoming else { return }
        do { try incoming.append(chunk) } catch {
            refuse(InboxRefusal(error.isDiskFull ? 507 : 500, "relay could not write the photo: \(error)"))
        }
    }

    /// The body ended: the photo is checked, committed and fsynced, and the answer made. A
    /// photo received before (same key, or same sender and content) is answered as it was then.
    func finish() -> InboxAnswer {
        if let refusal { return .refused(refusal) }
        if incoming == nil && !head.isEmpty { begin() }
        if let refusal { return .refused(refusal) }
        guard let incoming, let fileName else {
            switch shape {
            case .multipart:
                return .refused(
                    InboxRefusal(400, "the multipart body has no file part (a part with a filename, e.g. curl -F file=@IMG_0001.JPG)"))
            case .bare: return .refused(InboxRefusal(400, "the body is empty: PUT the JPEG itself"))
            }
        }
        guard let content = digest?.finish() else { return .refused(InboxRefusal(500, "relay could not digest the photo")) }
        if kind == .raw && ReceivedRAW.verdict(path: incoming.url.path) == .incomplete {
            return .refused(
                InboxRefusal(400, "\(InboxRequestRules.printable(fileName)) is cut short: its RAW data points past its end; send it whole"))
        }
        if kind == .jpeg && !content.isWholeJPEG {
            return .refused(
                InboxRefusal(400, "\(InboxRequestRules.printable(fileName)) is cut short: its JPEG image does not end; send it whole"))
        }
        let contentKey = context.contentKey(login: login, sha256: content.hex)
        let keys = [idempotencyKey.map { context.requestKey(login: login, idempotencyKey: $0) }, contentKey].compactMap { $0 }
        if let earlier = context.earlierReceipt(keys: keys, spoolContentKey: contentKey) {
            return .repeated(earlier)
        }
        guard context.spool.hasRoom(forBytes: content.bytes) else {
            return .refused(InboxRequestRules.spoolFull)
        }
        context.spool.setContentKey(contentKey, of: incoming)
        if !note.isEmpty { context.spool.setNote(note, of: incoming) }
        var receiptError: StateFileError?
        let receipts = context.receipts
        let sender = login
        let entry: SpoolEntry
        do throws(SpoolError) {
            entry = try context.spool.commit(incoming) { entry in
                do throws(StateFileError) {
                    try receipts.record(Self.receipt(entry, content: content, login: sender), keys: keys)
                } catch {
                    receiptError = error
                }
            }
        } catch {
            return .refused(InboxRefusal(error.isDiskFull ? 507 : 500, "relay could not spool the photo: \(error)"))
        }
        self.incoming = nil
        if let receiptError {
            context.report(.warning("http: \(entry.uploadName) is spooled but its receipt could not be kept (\(receiptError))"))
        }
        return .committed(entry, Self.receipt(entry, content: content, login: login))
    }

    static func receipt(_ entry: SpoolEntry, content: ContentDigest.Content, login: HTTPInboxLogin) -> InboxReceipts.Receipt {
        InboxReceipts.Receipt(id: entry.id, name: entry.uploadName, bytes: content.bytes, sha256: content.hex, photographer: login.name)
    }

    /// Drops whatever was written of a photo that is not committed (a refusal, a cut request).
    func discard() {
        if let incoming { context.spool.discard(incoming) }
        incoming = nil
    }
}

/// How a request ended.
enum InboxAnswer {
    case committed(SpoolEntry, InboxReceipts.Receipt)
    /// Received before: the first answer again.
    case repeated(InboxReceipts.Receipt)
    case refused(InboxRefusal)
}

extension SpoolError {
    var isDiskFull: Bool {
        if case .diskFull = self { return true }
        return false
    }
}
