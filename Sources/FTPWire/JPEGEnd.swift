/// Whether a received JPEG ends the way a whole one does: with the EOI marker (FF D9), perhaps
/// followed by padding (00 or FF bytes, which some bodies add).
///
/// FTP's stream mode has no length: a client that dies mid-upload closes its data connection
/// just as one that finished does. A cut-off JPEG almost never ends on FF D9 (inside the
/// entropy-coded data an FF is always followed by 00 or a restart marker, ITU T.81 B.1.1.5), so
/// this check keeps such a file as a partial upload instead of spooling half a photo.
public enum JPEGEnd {
    /// `tail` is the last bytes of the file (64 are plenty).
    public static func isComplete<Bytes: BidirectionalCollection>(tail: Bytes) -> Bool where Bytes.Element == UInt8 {
        var index = tail.endIndex
        while index != tail.startIndex {
            let previous = tail.index(before: index)
            let byte = tail[previous]
            if byte == 0xD9, previous != tail.startIndex, tail[tail.index(before: previous)] == 0xFF { return true }
            guard byte == 0x00 || byte == 0xFF else { return false }
            index = previous
        }
        return false
    }
}
