import Foundation
import PTPIP

/// A body whose maker relay has no Wi-Fi dialect for, recognised from its DeviceInfo, so the
/// photographer learns at once what to use instead of watching relay reconnect for ever.
///
/// Fujifilm speaks its own PTP-like protocol on ports 55740-55742 (libgphoto2
/// `camlibs/ptp2/fujiptpip.c`); Olympus/OM System, Panasonic and Ricoh/Pentax bodies are driven
/// over Wi-Fi by HTTP APIs of their own, not PTP/IP. Any of them that still answers DeviceInfo
/// here (over a bridge, or a firmware relay has not met) is one relay cannot drive.
public struct UnsupportedCamera: Sendable, Equatable {
    /// The brand as a photographer says it: "Fujifilm", "OM System/Olympus".
    public let brand: String
    public let model: String

    public init(brand: String, model: String) {
        self.brand = brand
        self.model = model
    }

    /// Manufacturer substrings (upper-cased) and the brand each stands for.
    static let brands: [(token: String, brand: String)] = [
        ("FUJIFILM", "Fujifilm"), ("OLYMPUS", "Olympus/OM System"), ("OM DIGITAL", "Olympus/OM System"),
        ("PANASONIC", "Panasonic"), ("RICOH", "Ricoh/Pentax"), ("PENTAX", "Ricoh/Pentax"),
    ]

    /// The unsupported body this DeviceInfo names, or nil for one relay may drive.
    public static func recognise(manufacturer: String, model: String) -> UnsupportedCamera? {
        let maker = manufacturer.uppercased()
        guard let match = brands.first(where: { maker.contains($0.token) }) else { return nil }
        return UnsupportedCamera(brand: match.brand, model: model.trimmingCharacters(in: .whitespaces))
    }

    /// The error that ends the camera source, with what to use instead.
    public func error(peer: String) -> PTPIPError {
        .unsupportedCamera(peer: peer, brand: brand, model: model.isEmpty ? nil : model)
    }
}
