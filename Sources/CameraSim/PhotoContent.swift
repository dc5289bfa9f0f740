import Foundation

/// Where an object's bytes come from: made in memory by the simulator, or a file of `--photos`
/// read on demand (so that a folder of large files is never held in memory at once).
public enum PhotoContent: Sendable, Equatable {
    case bytes([UInt8])
    case file(path: String, size: Int)
    case folder

    public var size: Int {
        switch self {
        case .bytes(let bytes): return bytes.count
        case .file(_, let size): return size
        case .folder: return 0
        }
    }

    /// Up to `count` bytes starting at `offset` (fewer at the end of the object).
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        let start = min(max(0, offset), size)
        let end = min(size, start + max(0, min(count, size)))
        switch self {
        case .bytes(let bytes):
            return Array(bytes[start..<end])
        case .file(let path, _):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CameraSimError.cannotReadPhoto(path: path, reason: "cannot open")
            }
            defer { try? handle.close() }
            do {
                try handle.seek(toOffset: UInt64(start))
                return [UInt8](try handle.read(upToCount: end - start) ?? Data())
            } catch {
                throw CameraSimError.cannotReadPhoto(path: path, reason: "\(error)")
            }
        case .folder:
            return []
        }
    }
}

/// Failures of the simulator itself (not of a client), worded for the person running it.
public enum CameraSimError: Error, CustomStringConvertible {
    case cannotReadPhoto(path: String, reason: String)
    case noPhotosInFolder(path: String)
    case cannotListen(host: String, port: UInt16, reason: String)

    public var description: String {
        switch self {
        case .cannotReadPhoto(let path, let reason): return "cannot read photo \(path): \(reason)"
        case .noPhotosInFolder(let path):
            return "--photos \(path): no .jpg/.jpeg (or RAW) files there"
        case .cannotListen(let host, let port, let reason): return "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
