import Foundation

/// One upload attempt as the photographer sees it in `relay history`.
///
/// The first fields are Camera2URL's history fields, unchanged; relay adds the file, its size,
/// the attempt's duration and number.
public struct HistoryRecord: Codable, Sendable, Equatable, Identifiable {
    public var id: UUID
    /// Which photo of this relay home's life it was (the spool's sequence number).
    public var captureNumber: Int
    public var timestamp: Date
    public var success: Bool
    public var statusCode: Int?
    public var errorMessage: String?
    /// Method, URL and headers, with secret header values redacted.
    public var requestSummary: String
    public var responseSummary: String?
    public var isTimerCapture: Bool
    public var fileName: String
    public var bytes: Int64
    public var durationSeconds: Double
    /// 1 for the first try of a photo, 2 for its first retry, and so on.
    public var attempt: Int
    /// The size of the rendition that was sent instead of the photo (`bytes`), if one was.
    public var renditionBytes: Int64?
    /// What the photographer should know about a successful upload (sent as the original, and why).
    public var note: String?
    /// Which destination the attempt went to, when a run delivers to several.
    public var destination: String?
    /// A bracketing frame's set, frame and speed.
    public var bracket: BracketTag?
    /// A person's decision this record is about (a rejected photo, never sent), not an attempt.
    public var decision: ReviewVerdict?
    /// The version of the stamp template (`relay stamp`) written into the photo sent; nil when
    /// it went unstamped.
    public var stampVersion: Int?
    /// Who shot the photo (``SpoolEntry/photographer``), when the desk knows.
    public var photographer: String?
    /// The editor's caption and title written into the photo sent, when it had one.
    public var caption: PhotoCaption?

    public init(
        id: UUID = UUID(), captureNumber: Int, timestamp: Date, success: Bool, statusCode: Int?,
        errorMessage: String?, requestSummary: String, responseSummary: String?, isTimerCapture: Bool = false,
        fileName: String, bytes: Int64, durationSeconds: Double, attempt: Int, renditionBytes: Int64? = nil, note: String? = nil,
        destination: String? = nil
    ) {
        self.id = id
        self.captureNumber = captureNumber
        self.timestamp = timestamp
        self.success = success
        self.statusCode = statusCode
        self.errorMessage = errorMessage
        self.requestSummary = requestSummary
        self.responseSummary = responseSummary
        self.isTimerCapture = isTimerCapture
        self.fileName = fileName
        self.bytes = bytes
        self.durationSeconds = durationSeconds
        self.attempt = attempt
        self.renditionBytes = renditionBytes
        self.note = note
        self.destination = destination
    }

    /// "24.8 MB → 812 KB" when a rendition was sent, else the photo's size.
    public var sizeText: String { ByteCountText.format(bytes, sent: renditionBytes) }
}

/// The rolling history: newest first, at most ``limit`` records (older ones fall off).
public struct HistoryLog: Codable, Sendable, Equatable {
    public static let limit = 100

    public private(set) var records: [HistoryRecord]

    public init(records: [HistoryRecord] = []) {
        self.records = Array(records.prefix(Self.limit))
    }

    /// Adds `record` in timestamp order: workers stamp a record before they take the store's
    /// lock, so the newest record is not always the last one added.
    public mutating func add(_ record: HistoryRecord) {
        let position = records.firstIndex { $0.timestamp <= record.timestamp } ?? records.endIndex
        records.insert(record, at: position)
        if records.count > Self.limit { records.removeLast(records.count - Self.limit) }
    }
}
