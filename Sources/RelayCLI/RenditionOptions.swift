import RelayCore

/// The rendition options shared by `relay config add` and `relay rendition`.
enum RenditionOptions {
    static let options: [OptionSpec] = [
        .value("--max-edge", "PIXELS", "send a copy at most this many pixels on its long edge (RENDITIONS in relay help tells more)"),
        .value("--quality", "Q", "the copy's JPEG quality, 1–100", default: "\(RenditionSpec.defaultQuality)"),
        .flag("--strip-gps", "leave the GPS position out of the copy"),
        .flag("--strip-metadata", "leave all metadata but the colour profile out of the copy"),
    ]

    /// `--max-edge N [--quality Q] [--strip-gps] [--strip-metadata]`, or nil when no
    /// `--max-edge` was given (then originals are sent); the other options need it.
    static func setting(_ args: Arguments) throws(CommandFailure) -> RenditionSetting? {
        guard let edge = args.value("--max-edge") else {
            if let other = ["--quality", "--strip-gps", "--strip-metadata"].first(where: { args.has($0) || args.all($0).count > 0 }) {
                throw CommandFailure(.usage, "\(other) needs --max-edge, the rendition's long edge in pixels (e.g. --max-edge 2048)")
            }
            return nil
        }
        guard let maxEdge = Int(edge) else {
            throw CommandFailure(
                .config, ConfigError.invalidNumber(field: "rendition.maxEdge", value: edge, reason: "give pixels, e.g. 2048").description)
        }
        var spec = RenditionSpec(maxEdge: maxEdge, stripGPS: args.has("--strip-gps"), keepMetadata: !args.has("--strip-metadata"))
        if let quality = args.value("--quality") {
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
