/// A bracketing frame's place, as its photo carries it to the gallery: `{set}`, `{frame}` and
/// `{exposure}` in path templates and form fields, and the same in the history and the session
/// manifest, so a gallery can group a set.
public struct BracketTag: Codable, Sendable, Equatable {
    /// The set, from 1.
    public var set: Int
    /// The frame's place in its set, from 1.
    public var frame: Int
    /// The speed as photographers write it: `1/250`, `2"`.
    public var exposure: String

    public init(set: Int, frame: Int, exposure: String) {
        self.set = set
        self.frame = frame
        self.exposure = exposure
    }

    /// The speed in a path: `1-250`, `2s`.
    public var exposureInPath: String {
        exposure.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: "\"", with: "s")
    }
}
