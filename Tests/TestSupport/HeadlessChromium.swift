import Foundation

/// Debian's Chromium, headless, loading one page with a fresh profile: `--dump-dom` gives the
/// DOM after the page's scripts ran for `virtualTimeBudget` ms of page time, `--screenshot`
/// a PNG. One invocation costs a couple of seconds, so a test makes one.
public enum HeadlessChromium {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String { "chromium is not installed: run scripts/install-deps.sh" }
    }

    public static func run(_ arguments: [String], url: String, virtualTimeBudget: Int = 5000) throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        guard let chromium = Subprocess.which("chromium") else { throw Missing() }
        let profile = try TestPaths.makeTemporaryDirectory("chromium-profile")
        defer { try? FileManager.default.removeItem(at: profile) }
        return try Subprocess.run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                "--user-data-dir=\(profile.path)", "--virtual-time-budget=\(virtualTimeBudget)",
            ]
                + arguments + [url], timeout: 120)
    }

    /// The page's DOM once its scripts have run.
    public static func dumpDOM(_ url: String) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(["--dump-dom"], url: url)
    }

    /// A screenshot of the page into `path`, phone-sized (412×915) unless `size` says otherwise
    /// (a venue's screen: 1280×720); `stdout` holds the page's DOM as ``dumpDOM(_:)`` gives it
    /// (one Chromium start for both).
    public static func screenshot(_ url: String, to path: URL, size: (width: Int, height: Int) = (412, 915)) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: path)
        return try run(["--dump-dom", "--screenshot=\(path.path)", "--window-size=\(size.width),\(size.height)"], url: url)
    }
}
