import PhotoMetadata

/// A camera's Multi-Picture Format segment (APP2 "MPF", CIPA DC-007) points at the images after
/// the primary one (a preview, a depth map) by offsets counted from its own TIFF header. The
/// stamp changing the size of segments after it moves those images: their offsets are moved by
/// the same number of bytes, so the MP images stay readable.
enum MPFOffsets {
    /// Adds `delta` to every MP entry's offset (the primary image's, 0, stays) in the MPF
    /// segment body `body` (from "MPF\0" on); false when it cannot be read (left as it was).
    static func shift(_ body: inout [UInt8], by delta: Int) -> Bool {
        guard delta != 0 else { return true }
        let tiffStart = 4
        guard body.starts(with: Array("MPF\0".utf8)), let tiff = TIFFDirectory(body[tiffStart...]),
            let entry = tiff.entry(0xB002, at: tiff.firstDirectory), entry.type == 7, entry.count % 16 == 0,
            let value = tiff.value(entry)
        else { return false }
        let little = body[tiffStart] == 0x49
        for index in stride(from: value.startIndex, to: value.endIndex, by: 16) {
            let at = index + 8
            var offset = 0
            for byte in 0..<4 { offset |= Int(body[at + byte]) << (8 * (little ? byte : 3 - byte)) }
            guard offset != 0 else { continue }
            let moved = offset + delta
            guard moved > 0, moved <= Int(UInt32.max) else { return false }
            for byte in 0..<4 { body[at + byte] = UInt8((moved >> (8 * (little ? byte : 3 - byte))) & 0xFF) }
        }
        return true
    }
}
