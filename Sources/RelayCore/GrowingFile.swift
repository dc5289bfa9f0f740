import Foundation

/// A file that another thread is still writing while it is already being read: a photo whose
/// upload starts while its camera download runs (cut-through).
///
/// The writer decides which bytes the reader may see. A reader that is told the file was
/// abandoned must give up everything it sent from it: the bytes may not be final, and the file
/// may never be complete.
public protocol GrowingFile: AnyObject, Sendable {
    /// The size the file will have once complete, when known before it is (a camera's
    /// ObjectInfo): an upload announces it. Nil while unknown (an FTP upload says no size): the
    /// upload then goes without a length (HTTP chunked) and learns the end from ``GrowingFileProgress/ended``.
    var finalSize: Int64? { get }
    /// A descriptor open for reading (with `pread`) for as long as this object lives.
    var fileDescriptor: Int32 { get }
    /// Whether the writer gave up on the file (a failed download, a cut connection).
    var isAbandoned: Bool { get }
    /// Waits up to `timeout` seconds until more than `offset` bytes may be read.
    func waitForBytes(beyond offset: Int64, timeout: TimeInterval) -> GrowingFileProgress
}

/// What a reader of a ``GrowingFile`` may do next.
public enum GrowingFileProgress: Sendable, Equatable {
    /// This many bytes from the start may be read (more than the offset asked about).
    case available(Int64)
    /// Nothing new within the timeout; ask again.
    case pending
    /// The file will not be completed as written: stop reading and drop what was read.
    case abandoned
    /// The file is complete and every byte of it is before the offset asked about.
    case ended
}
