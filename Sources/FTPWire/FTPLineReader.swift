/// Splits the control connection's bytes into command lines (ended by LF, with or without CR),
/// refusing a line longer than `maxLineLength` so that a client cannot make the server buffer
/// without end.
public struct FTPLineReader: Sendable {
    public let maxLineLength: Int
    private var buffer: [UInt8] = []
    private var scanned = 0

    public init(maxLineLength: Int = 4096) {
        self.maxLineLength = maxLineLength
    }

    /// A line too long to be a command.
    public struct LineTooLong: Error, Sendable, Equatable {}

    public mutating func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete line without its line end, nil when more bytes are needed.
    public mutating func nextLine() throws(LineTooLong) -> [UInt8]? {
        guard let newline = buffer[scanned...].firstIndex(of: 0x0A) else {
            scanned = buffer.count
            if buffer.count > maxLineLength { throw LineTooLong() }
            return nil
        }
        guard newline <= maxLineLength else { throw LineTooLong() }
        var line = Array(buffer[..<newline])
        if line.last == 0x0D { line.removeLast() }
        buffer.removeSubrange(...newline)
        scanned = 0
        return line
    }

    /// Bytes received after the last complete line.
    public var pendingCount: Int { buffer.count }
}
