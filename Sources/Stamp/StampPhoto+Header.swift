import Foundation
import PhotoMetadata
import RelayCore

extension StampPhoto {
    /// The photo as its own header describes it (the EXIF capture time, model and serial);
    /// what the header lacks comes from `capturedAt` and `serial`, the spool's knowledge.
    public init(
        header: PhotoHeaderIdentity, name: String, sequence: Int, bracket: BracketTag? = nil, capturedAt: Date, serial: String = ""
    ) {
        self.init(
            capturedAt: header.capturedAt.flatMap(Self.exifDate) ?? capturedAt, model: header.model ?? "",
            serial: header.serial ?? serial, name: name, sequence: sequence, bracket: bracket)
    }

    /// EXIF's "2026:11:23 18:04:05" in the machine's time zone (EXIF gives none).
    static func exifDate(_ text: String) -> Date? {
        let numbers = text.prefix(19).split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard numbers.count == 6 else { return nil }
        var parts = DateComponents()
        (parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second) =
            (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5])
        return Calendar(identifier: .gregorian).date(from: parts)
    }
}
