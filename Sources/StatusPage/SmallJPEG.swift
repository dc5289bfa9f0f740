import Foundation
import Rendition

/// The pages' pictures of a photo (the status page's thumbnails, the editor's thumbnails, the
/// wall's screen-sized pictures): a JPEG made by `maker` through a scratch file in `folder`, or
/// the photo itself when it is already small (at most `originalLimit` bytes) and a JPEG; nil when
/// neither (not a JPEG relay can decode, or gone).
enum SmallJPEG {
    static func make(from source: URL, with maker: RenditionMaker, in folder: URL, originalLimit: Int) -> [UInt8]? {
        let output = folder.appendingPathComponent("\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: output) }
        switch try? maker.make(source: source, destination: output) {
        case .made?:
            return (try? Data(contentsOf: output)).map { Array($0) }
        case .original?:
            guard let data = try? Data(contentsOf: source), data.count <= originalLimit, data.starts(with: [0xFF, 0xD8]) else {
                return nil
            }
            return Array(data)
        case nil:
            return nil
        }
    }

    /// The photo id in `PREFIX<id>.jpg` (ASCII letters and digits only: a path cannot name
    /// anything else).
    static func photoID(in path: String, under prefix: String) -> String? {
        let suffix = ".jpg"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix), path.count > prefix.count + suffix.count else { return nil }
        let id = String(path.dropFirst(prefix.count).dropLast(suffix.count))
        return id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? id : nil
    }
}
