/// What a camera says about itself in libgphoto2's summary text. The ptp2 driver writes the
/// DeviceInfo there as "Manufacturer: …", "Model: …" and "  Serial Number: …" lines
/// (camlibs/ptp2/library.c, camera_summary); the serial is what relay remembers a camera by.
public struct GPhoto2Summary: Equatable, Sendable {
    public var manufacturer: String?
    public var model: String?
    public var serial: String?

    public init(manufacturer: String? = nil, model: String? = nil, serial: String? = nil) {
        self.manufacturer = manufacturer
        self.model = model
        self.serial = serial
    }

    /// Reads the first value of each field; fields that are missing or empty stay nil.
    public init(parsing text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard let colon = trimmed.firstIndex(of: ":") else { continue }
            let value = String(trimmed[trimmed.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
                .trimmingTrailingSpaces()
            guard !value.isEmpty else { continue }
            switch trimmed[..<colon] {
            case "Manufacturer" where manufacturer == nil: manufacturer = value
            case "Model" where model == nil: model = value
            case "Serial Number" where serial == nil: serial = value
            default: continue
            }
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
