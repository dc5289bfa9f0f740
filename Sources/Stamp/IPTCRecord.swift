import Foundation

/// IPTC IIM (the Information Interchange Model) datasets as galleries read them from a JPEG's
/// APP13 (WordPress's `wp_read_image_metadata` through PHP's `iptcparse`): `1C`, record,
/// dataset, a 16-bit big-endian length, the bytes; records in ascending order (exiftool
/// WriteIPTC.pl). Record 1 says the text is UTF-8 (1:90 = ESC % G) so readers decode it as such.
/// Each field is cut, at a character boundary, to the length IIM allows (IPTC.pm's tables).
public enum IPTCRecord {
    /// The IIM length limits of the written fields, in bytes.
    public static let limits: [String: Int] = [
        "title": 64, "keywords": 64, "creator": 32, "city": 32, "headline": 256, "credit": 32, "copyright": 128,
        "caption": 2000,
    ]

    /// The datasets of `values`: 1:00 version 4, 1:90 UTF-8, 2:00 version 4, then the fields.
    public static func encode(_ values: StampValues, timeZone: TimeZone = .current) -> [UInt8] {
        var out: [UInt8] = []
        func dataset(_ record: UInt8, _ number: UInt8, _ bytes: [UInt8]) {
            out += [0x1C, record, number, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }
        func text(_ number: UInt8, _ value: String, field: String) {
            guard !value.isEmpty else { return }
            dataset(2, number, cut(value, to: limits[field] ?? 2000))
        }
        dataset(1, 0, [0, 4])
        dataset(1, 90, [0x1B, 0x25, 0x47])
        dataset(2, 0, [0, 4])
        text(5, values.title, field: "title")
        for keyword in values.keywords { text(25, keyword, field: "keywords") }
        if let date = values.capturedAt {
            let time = LocalTime(date, timeZone: timeZone)
            dataset(2, 55, Array(time.iimDate.utf8))
            dataset(2, 60, Array(time.iimTime.utf8))
        }
        text(80, values.creator, field: "creator")
        text(90, values.city, field: "city")
        text(105, values.headline, field: "headline")
        text(110, values.credit, field: "credit")
        text(116, values.copyright, field: "copyright")
        text(120, values.caption, field: "caption")
        return out
    }

    /// `value`'s UTF-8 bytes, at most `limit`, never half a character.
    static func cut(_ value: String, to limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for character in value {
            let next = Array(String(character).utf8)
            guard bytes.count + next.count <= limit else { break }
            bytes += next
        }
        return bytes
    }
}
