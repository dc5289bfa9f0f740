import CommandLineOptions
import RelayCore

/// The rendition options shared by `relay config add` and `relay rendition`.
enum RenditionOptions {
    /// Text, read by the rendition's own rules (``RenditionSpec/validate()``), which name the config field.
    static let maxEdge = Option.text(
        "--max-edge", "PIXELS", "send a copy at most this many pixels on its long edge (RENDITIONS in relay help tells more)")
    static let quality = Option.text("--quality", "Q", "the copy's JPEG quality, 1–100", default: "\(RenditionSpec.defaultQuality)")
    static let stripGPS = Flag("--strip-gps", "leave the GPS position out of the copy")
    static let stripMetadata = Flag("--strip-metadata", "leave all metadata but the colour profile out of the copy")

    static let options: [OptionSpec] = [maxEdge.spec, quality.spec, stripGPS.spec, stripMetadata.spec]

    /// `--max-edge N [--quality Q] [--strip-gps] [--strip-metadata]`, or nil when no
    /// `--max-edge` was given (then originals are sent); the other options need it.
    static func setting(_ args: Arguments) throws(CommandFailure) -> RenditionSetting? {
        guard let edge = try args.value(maxEdge) else {
            if let other = [quality.spec, stripGPS.spec, stripMetadata.spec].first(where: args.gave) {
                throw CommandFailure(.usage, "\(other.name) needs --max-edge, the rendition's long edge in pixels (e.g. --max-edge 2048)")
            }
            return nil
        }
        guard let maxEdge = Int(edge) else {
            throw CommandFailure(
                .config, ConfigError.invalidNumber(field: "rendition.maxEdge", value: edge, reason: "give pixels, e.g. 2048").description)
        }
        var spec = RenditionSpec(maxEdge: maxEdge, stripGPS: args.has(stripGPS), keepMetadata: !args.has(stripMetadata))
        if let quality = try args.value(quality) {
            guard let value = Int(quality) else {
                throw CommandFailure(
                    .config,
                    ConfigError.invalidNumber(field: "rendition.quality", value: quality, reason: "JPEG quality is 1–100 (e.g. 85)")
                        .description)
            }
            spec.quality = value
        }
        do { try spec.validate() } catch { throw CommandFailure(.config, error.description) }
        return .resized(spec)
    }
}
