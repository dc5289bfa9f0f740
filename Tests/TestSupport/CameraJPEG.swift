import Foundation

/// Camera-like JPEGs (colour detail, noise, EXIF with orientation and GPS, an ICC profile, XMP)
/// written by `scripts/camera_jpeg.py` (Pillow), and what independent tools read back from
/// renditions: `exiftool` for metadata, Pillow for pixels.
public enum CameraJPEG {
    public struct Options {
        public var width: Int
        public var height: Int
        public var orientation = 1
        public var gps = false
        public var xmp = false
        public var seed = 1

        public init(width: Int, height: Int, orientation: Int = 1, gps: Bool = false, xmp: Bool = false, seed: Int = 1) {
            self.width = width
            self.height = height
            self.orientation = orientation
            self.gps = gps
            self.xmp = xmp
            self.seed = seed
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case tool(String)
        public var description: String {
            switch self {
            case .tool(let message): message
            }
        }
    }

    static var python: URL {
        get throws {
            guard let python = Subprocess.which("python3") else { throw Failure.tool("python3 is missing") }
            return python
        }
    }

    /// Writes a photo to `url`; returns its bytes. Each photo is made once per machine and kept
    /// (by the script's text and the options) in `~/.cache/relay/test-photos` (or
    /// `$XDG_CACHE_HOME`'s): a Python with Pillow started for every test photo was a tenth of the
    /// suite's CPU.
    @discardableResult
    public static func write(to url: URL, _ options: Options) throws -> Data {
        let script = TestPaths.repositoryRoot.appendingPathComponent("scripts/camera_jpeg.py")
        var arguments = [
            "--width", "\(options.width)", "--height", "\(options.height)",
            "--orientation", "\(options.orientation)", "--seed", "\(options.seed)", "--quality", "90",
        ]
        if options.gps { arguments.append("--gps") }
        if options.xmp { arguments.append("--xmp") }
        let key = SHA256.hex(try Data(contentsOf: script) + Data(arguments.joined(separator: " ").utf8))
        let kept = cache.appendingPathComponent("\(key).jpg")
        if let data = try? Data(contentsOf: kept) {
            try data.write(to: url)
            return data
        }
        let result = try Subprocess.run(try python, [script.path, url.path] + arguments, timeout: 120)
        guard result.status == 0 else { throw Failure.tool("camera_jpeg.py failed: \(result.stderr)") }
        let data = try Data(contentsOf: url)
        // Renamed in whole, so that a test running beside this one never reads half of it.
        try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = kept.deletingLastPathComponent().appendingPathComponent(".\(key).\(UUID().uuidString)")
        try data.write(to: partial)
        if rename(partial.path, kept.path) != 0 { try? FileManager.default.removeItem(at: partial) }
        return data
    }

    private static var cache: URL {
        let environment = ProcessInfo.processInfo.environment
        let base =
            environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("relay/test-photos")
    }

    /// `exiftool -j -n` of one file: every tag by its short name.
    public static func exif(_ url: URL) throws -> [String: Any] {
        guard let exiftool = Subprocess.which("exiftool") else {
            throw Failure.tool("exiftool is missing (apt install libimage-exiftool-perl)")
        }
        let result = try Subprocess.run(exiftool, ["-j", "-n", "-G0", url.path], timeout: 60)
        guard result.status == 0, let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
            let tags = list.first
        else { throw Failure.tool("exiftool failed on \(url.path): \(result.stderr)") }
        return tags
    }

    /// Decodes the whole file with Pillow (a cut-off or corrupt JPEG fails) and returns its size
    /// and the RGB of two probe points: near the top-left and near the top-right corner.
    public static func probe(_ url: URL) throws -> (width: Int, height: Int, topLeft: [Int], topRight: [Int]) {
        let script = """
            import json, sys
            from PIL import Image
            image = Image.open(sys.argv[1]); image.load(); image = image.convert("RGB")
            w, h = image.size
            m = max(2, min(w, h) // 40)
            print(json.dumps({"w": w, "h": h, "tl": image.getpixel((m, m)), "tr": image.getpixel((w - 1 - m, m))}))
            """
        let result = try Subprocess.run(try python, ["-c", script, url.path], timeout: 60)
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let width = object["w"] as? Int, let height = object["h"] as? Int,
            let topLeft = object["tl"] as? [Int], let topRight = object["tr"] as? [Int]
        else {
            throw Failure.tool("Pillow could not decode \(url.path): \(result.stderr)")
        }
        return (width, height, topLeft, topRight)
    }

    /// A whole JPEG (FF D8 … FF D9) whose entropy-coded data is damaged in the middle: what a
    /// card error or a bad download gives, which a gallery still accepts as a JPEG.
    public static func damaged(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        let start = bytes.count / 2
        for i in start..<min(bytes.count - 2, start + 4096) { bytes[i] = i % 2 == 0 ? 0xFF : 0xD3 }
        return Data(bytes)
    }
}
