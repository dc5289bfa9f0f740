/// Bytes sent in place of the start of a file: a stamped photo's new header, in front of the
/// camera's pixels. The uploader reads `bytes`, then the file from `replacing` on, so no copy of
/// the photo is made and a file still being written (cut-through) streams as before.
public struct BodyPrefix: Sendable, Equatable {
    public var bytes: [UInt8]
    /// How many bytes at the file's start `bytes` replaces.
    public var replacing: Int64

    public init(bytes: [UInt8], replacing: Int64) {
        self.bytes = bytes
        self.replacing = replacing
    }

    /// The body's size for a file of `fileSize` bytes.
    public func bodySize(fileSize: Int64) -> Int64 { fileSize - replacing + Int64(bytes.count) }
}
