import RelayCore

/// Makes stand-ins for RAW files: the right leading bytes for the format (so that `file` and
/// format sniffers recognise them) followed by seeded random bytes up to the size asked for.
public enum RawMaker {
    public static func make(fileExtension: String, size: Int, random: inout SeededRandom) -> [UInt8] {
        var header: [UInt8]
        switch fileExtension.uppercased() {
        case "CR3":
            // ISO base media file, brand "crx ".
            header = [0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8)
        default:
            // NEF and ARW are TIFF files, little-endian.
            header = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        }
        return header + random.bytes(size - header.count)
    }
}
