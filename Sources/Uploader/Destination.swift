import Foundation
import RelayCore

/// One photo as a destination sees it: the file to send and what names it. Built by the
/// pipeline from a spooled photo, so a destination never reads the spool.
public struct DeliveryItem: Sendable, Equatable {
    /// The file sent: the photo, or its rendition.
    public var filePath: String
    /// The safe, unique name the photo is delivered under (the camera's own name by default).
    public var name: String
    /// The same on every attempt for this photo (and different for a rendition of it), so a
    /// retry after a lost answer cannot make a second copy.
    public var key: String
    /// The sent file's media type (`image/jpeg`, or a RAW type with `--include-raw`).
    public var contentType: String
    /// What path templates fill in: the capture time, the camera and the photo's numbers.
    public var template: PathTemplate.Values
    /// Sent in place of the file's header (the stamp's), nil for the file as it is.
    public var prefix: BodyPrefix?
    /// The words the stamp writes into it, nil when it goes unstamped: for galleries that keep
    /// them in fields of their own (WordPress's title, caption and alt text).
    public var words: PhotoWords?

    public init(filePath: String, name: String, key: String, contentType: String, template: PathTemplate.Values) {
        self.filePath = filePath
        self.name = name
        self.key = key
        self.contentType = contentType
        self.template = template
    }
}

/// A photo's title, caption and creator as its stamp writes them (the editor's caption over the
/// template's); empty text where the stamp has none.
public struct PhotoWords: Sendable, Equatable {
    public var title: String
    public var caption: String
    public var creator: String

    public init(title: String = "", caption: String = "", creator: String = "") {
        self.title = title
        self.caption = caption
        self.creator = creator
    }
}

/// Told the bytes of the file sent so far and its size, during an attempt.
public typealias UploadProgress = @Sendable (_ sent: Int64, _ total: Int64) -> Void

extension Destination {
    public var acceptsGrowingFilesOfUnknownSize: Bool { false }

    /// One attempt that nobody watches.
    public func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int) -> DeliveryReport {
        deliver(item, growing: growing, attempt: attempt, progress: nil)
    }
}

/// What one delivery attempt came to, in words a photographer can act on.
public struct DeliveryReport: Sendable, Equatable {
    /// Delivered, retry after a delay, or permanent.
    public var decision: DeliveryDecision
    /// What the attempt says about whether the destination can be reached at all.
    public var evidence: GalleryReachability.Evidence
    /// The destination's answer code (an HTTP status; S3 answers over HTTP too), if there was one.
    public var statusCode: Int?
    /// The destination's answer as the history shows it ("HTTP 201 {…}"), if there was one.
    public var answer: String?
    /// Why the attempt did not deliver (nil when delivered).
    public var problem: String?
    /// Set when the attempt ended without an answer: the network, TLS, the file, or a cancel.
    public var transportError: UploadTransportError?
    /// Bytes of the body sent in this attempt.
    public var bytesSent: Int64

    public init(
        decision: DeliveryDecision, evidence: GalleryReachability.Evidence, statusCode: Int? = nil, answer: String? = nil,
        problem: String? = nil, transportError: UploadTransportError? = nil, bytesSent: Int64 = 0
    ) {
        self.decision = decision
        self.evidence = evidence
        self.statusCode = statusCode
        self.answer = answer
        self.problem = problem
        self.transportError = transportError
        self.bytesSent = bytesSent
    }
}

/// Where photos go: an HTTP endpoint, an S3-compatible bucket, … One value per upload worker,
/// owning that worker's connection (a libcurl handle), so it is deliberately not Sendable.
public protocol Destination: AnyObject {
    /// Whether an upload may start while the photo is still downloading (the body's length is
    /// known up front but not its content, so a destination that sends a checksum cannot).
    var acceptsGrowingFiles: Bool { get }

    /// Whether such an upload may start before the photo's size is known (an FTP upload says
    /// none): its body then goes without a length.
    var acceptsGrowingFilesOfUnknownSize: Bool { get }

    /// One attempt, blocking the calling thread. `attempt` is 0 for a photo's first try (the
    /// backoff grows with it). With `growing`, the file is still being written (cut-through).
    /// `progress` hears the bytes sent so far, at most twice a second.
    func deliver(_ item: DeliveryItem, growing: (any GrowingFile)?, attempt: Int, progress: UploadProgress?) -> DeliveryReport

    /// Asked before the re-send numbered `attempt`: whether an earlier attempt of `item` landed
    /// though its answer was lost (a slug, a checksum, a HEAD, a PROPFIND, a file's size). A
    /// question that fails backs off as far as a failed send would. `.unknowable` by default.
    func probe(_ item: DeliveryItem, attempt: Int) -> EarlierAttempt

    /// Where the photo lands (an object key, a remote path, a URL), as a session's manifest names it.
    func location(of item: DeliveryItem) -> String

    /// Announces a complete session: the manifest (the JSON file at `manifest`), then the
    /// completion marker (the empty file at `marker`), one attempt each, the marker only after the
    /// manifest is delivered. Nil when the config asks for no announcement.
    func deliverSet(manifest: String, marker: String, session: String) -> DeliveryReport?

    /// The attempt as the history shows it, without secrets.
    func summary(of item: DeliveryItem) -> String
}

extension DeliveryReport {
    /// The manifest-then-done order for destinations with folders (S3, FTP): `send(file, name)`
    /// puts `manifest.json`, and only once it is delivered, `_DONE`.
    public static func manifestThenDone(
        manifest: String, marker: String,
        _ send: (_ file: String, _ name: String) -> DeliveryReport
    ) -> DeliveryReport {
        let sent = send(manifest, "manifest.json")
        guard sent.decision == .delivered else { return sent }
        return send(marker, "_DONE")
    }

    /// The report of an attempt that ended with an HTTP answer or a transport error, once the
    /// rules have decided: what HTTP and S3 (which answers over HTTP) have in common.
    public init(_ outcome: Result<UploadResponse, UploadTransportError>, decision: DeliveryDecision) {
        let response = try? outcome.get()
        let failure: UploadTransportError? = if case .failure(let error) = outcome { error } else { nil }
        let answer = response.map { "HTTP \($0.statusCode)" + ($0.bodySummary.isEmpty ? "" : " \($0.bodySummary)") }
        let problem: String? =
            switch decision {
            case .delivered: nil
            case .permanent(let reason): reason
            case .retry: failure?.description ?? answer
            }
        self.init(
            decision: decision, evidence: GalleryReachability.evidence(of: outcome), statusCode: response?.statusCode,
            answer: answer, problem: problem, transportError: failure, bytesSent: response?.bytesSent ?? 0)
    }
}
