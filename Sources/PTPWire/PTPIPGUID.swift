/// The 16-byte client id of InitCommandRequest, as text a photographer can copy: 32 hex digits,
/// optionally grouped with `:`, `-` or spaces and wrapped in braces. Cameras pair with this id
/// (gphoto2 keeps it as `ptp2_ip guid` in the form `00:11:…:ff`, libgphoto2
/// `camlibs/ptp2/ptpip.c`; a packet capture shows the same bytes in the same order), so the
/// bytes are taken in the order written, never reordered as a Windows GUID string would be.
public enum PTPIPGUID {
    public static let byteCount = 16

    /// The bytes of `text`, or nil when it is not 16 bytes of hex.
    public static func parse(_ text: String) -> [UInt8]? {
        var trimmed = Substring(text)
        while trimmed.first?.isWhitespace == true { trimmed = trimmed.dropFirst() }
        while trimmed.last?.isWhitespace == true { trimmed = trimmed.dropLast() }
        if trimmed.hasPrefix("{") && trimmed.hasSuffix("}") { trimmed = trimmed.dropFirst().dropLast() }
        let digits = trimmed.filter { $0 != ":" && $0 != "-" && $0 != " " }
        guard digits.count == byteCount * 2, digits.allSatisfy(\.isHexDigit) else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// 32 lower-case hex digits, as `cameras.json` stores the id.
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let text = String(byte, radix: 16)
            return text.count == 1 ? "0" + text : text
        }.joined()
    }
}
