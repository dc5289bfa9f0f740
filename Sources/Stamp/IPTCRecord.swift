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

    /// One dataset: its record, number and bytes.
    struct Dataset: Equatable {
        var record: UInt8
        var number: UInt8
        var data: [UInt8]
    }

    /// The datasets of `values` merged with the photo's own (`existing`, its IIM data, when it
    /// has some): 1:00 version 4, 1:90 UTF-8, 2:00 version 4, then record 2 in dataset order,
    /// the stamp's fields in place of the photo's same datasets and the photo's others kept (as
    /// UTF-8: text from a block that did not say so is read as Latin-1), then any later record.
    public static func encode(_ values: StampValues, keeping existing: ArraySlice<UInt8>? = nil, timeZone: TimeZone = .current)
        -> [UInt8]
    {
        let written = datasets(values, timeZone: timeZone)
        let replaced = Set(written.map(\.number))
        let old = existing.map(parse) ?? []
        let oldIsUTF8 = old.contains { $0.record == 1 && $0.number == 90 && $0.data == utf8Declaration }
        var recordOne = [Dataset(record: 1, number: 0, data: [0, 4]), Dataset(record: 1, number: 90, data: utf8Declaration)]
        recordOne += old.filter { $0.record == 1 && $0.number != 0 && $0.number != 90 }
        var recordTwo = written
        for dataset in old where dataset.record == 2 && dataset.number != 0 && !replaced.contains(dataset.number) {
            var kept = dataset
            if !oldIsUTF8 && dataset.number < 200 {
                kept.data = Array(String(String.UnicodeScalarView(dataset.data.map { Unicode.Scalar($0) })).utf8)
            }
            recordTwo.append(kept)
        }
        recordTwo = recordTwo.enumerated().sorted { ($0.element.number, $0.offset) < ($1.element.number, $1.offset) }.map(\.element)
        let later = old.filter { $0.record > 2 }
        var out: [UInt8] = []
        for dataset in recordOne + [Dataset(record: 2, number: 0, data: [0, 4])] + recordTwo + later {
            let count = min(dataset.data.count, 0x7FFF)
            out += [0x1C, dataset.record, dataset.number, UInt8(count >> 8), UInt8(count & 0xFF)] + dataset.data.prefix(count)
        }
        return out
    }

    static let utf8Declaration: [UInt8] = [0x1B, 0x25, 0x47]

    /// The stamp's own record-2 datasets, in dataset order.
    static func datasets(_ values: StampValues, timeZone: TimeZone) -> [Dataset] {
        var out: [Dataset] = []
        func text(_ number: UInt8, _ value: String, field: String) {
            guard !value.isEmpty else { return }
            out.append(Dataset(record: 2, number: number, data: cut(value, to: limits[field] ?? 2000)))
        }
        text(5, values.title, field: "title")
        for keyword in values.keywords { text(25, keyword, field: "keywords") }
        if let date = values.capturedAt {
            let time = LocalTime(date, timeZone: timeZone)
            out.append(Dataset(record: 2, number: 55, data: Array(time.iimDate.utf8)))
            out.append(Dataset(record: 2, number: 60, data: Array(time.iimTime.utf8)))
        }
        text(80, values.creator, field: "creator")
        text(90, values.city, field: "city")
        text(105, values.headline, field: "headline")
        text(110, values.credit, field: "credit")
        text(116, values.copyright, field: "copyright")
        text(120, values.caption, field: "caption")
        return out
    }

    /// The datasets of an IIM block, as far as they are well formed (an extended length, used
    /// only for previews, ends the reading).
    static func parse(_ bytes: ArraySlice<UInt8>) -> [Dataset] {
        var out: [Dataset] = []
        var at = bytes.startIndex
        while at + 5 <= bytes.endIndex, bytes[at] == 0x1C {
            let length = Int(bytes[at + 3]) << 8 | Int(bytes[at + 4])
            guard length & 0x8000 == 0, at + 5 + length <= bytes.endIndex else { break }
            out.append(Dataset(record: bytes[at + 1], number: bytes[at + 2], data: Array(bytes[(at + 5)..<(at + 5 + length)])))
            at += 5 + length
        }
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
