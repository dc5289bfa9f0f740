import Foundation
import PhotoMetadata
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes the gallery copy of one photo: decoded at the DCT scale nearest above the target,
/// resampled to the exact size, turned upright, encoded, with the photo's metadata carried over.
///
/// The photo may be fed as it arrives (``begin(destination:)``, ``feed(_:)``,
/// ``finish(photo:name:)``): each piece is decoded at once and its rows resized, and an upright
/// photo's rendition is encoded into its file as its rows are made, so that when the last byte
/// comes only the last rows remain. Fed in any pieces, a photo gives the same rendition.
///
/// One maker per thread (it owns its libjpeg decoder and encoder), one photo at a time. Only the
/// scaled image is ever decoded: a 45-megapixel photo made 2048 px wide is decoded at 1/4
/// (about 8 MB), never at full size.
public final class RenditionMaker {
    public let spec: RenditionSpec
    private let decoder: JPEGStreamDecoder
    private let encoder: JPEGStreamEncoder
    private var stage = Stage.collecting
    /// The bytes fed until the header was read: the metadata segments are taken from them.
    private var head: [UInt8] = []
    private var plan: RenditionPlan?
    private var destination: URL?
    private var output: Int32 = -1
    private var writer: RenditionWriter?

    /// How far the photo being fed has got.
    private enum Stage {
        case collecting, starting, decoding, finishing
        /// Every row is in the rendition's file.
        case written
        /// Needs no decoding: sent as it is, or copied with edited metadata.
        case undecoded
        /// Sent as the original, for this reason.
        case failed(String)
        /// The rendition's file cannot be written.
        case broken(RenditionError)
    }

    public init(spec: RenditionSpec) throws(RenditionError) {
        self.spec = spec
        do { decoder = try JPEGStreamDecoder() } catch { throw .codec(error.description) }
        do { encoder = try JPEGStreamEncoder() } catch { throw .codec(error.description) }
    }

    deinit { discardOutput() }

    /// What became of a photo.
    public enum Outcome: Equatable, Sendable {
        /// A rendition was written: its size in bytes and pixels, and what was noticed on the way
        /// (metadata that could not be kept).
        case made(bytes: Int64, width: Int, height: Int, notes: [String])
        /// The original is sent instead, for this reason (already small, not a JPEG, damaged).
        case original(reason: String)
    }

    /// Whether the maker wants more of the photo.
    public enum Progress: Equatable, Sendable {
        case needsBytes
        /// The rest of the photo is not needed (it is decoded, or will not be).
        case hasEnough
    }

    /// Makes the rendition of the photo at `source` into `destination` (created, written in
    /// full and fsynced). Damage in the photo is an `.original` outcome, never an error: the
    /// photo still goes. Only reading the photo or writing the rendition can fail.
    public func make(source: URL, destination: URL) throws(RenditionError) -> Outcome {
        let fd = open(source.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: source.path, reason: "\(Errno.current("open"))") }
        defer { close(fd) }
        begin(destination: destination)
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            guard count >= 0 else { throw .io(path: source.path, reason: "\(Errno.current("read"))") }
            if count == 0 { break }
            offset += off_t(count)
            let progress = chunk.withUnsafeBytes { feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            if progress == .hasEnough { break }
        }
        return try finish(photo: fd, name: source.path)
    }

    /// The size of the pieces a committed photo is read in: small enough to keep its pages out
    /// of memory, large enough to read it at disk speed.
    public static let chunkSize = 256 * 1024

    /// Starts a photo whose rendition goes to `destination`, forgetting any other (a download
    /// that was rewound starts again here, its rendition's file dropped).
    public func begin(destination: URL) {
        discardOutput()
        decoder.reset()
        encoder.abort()
        stage = .collecting
        head = []
        plan = nil
        writer = nil
        self.destination = destination
    }

    /// Drops the photo under way (its download was abandoned): its rendition's file goes.
    public func abandon() {
        discardOutput()
        decoder.reset()
        encoder.abort()
        stage = .failed("abandoned")
        writer = nil
    }

    /// Whether the rendition's file is written as the photo is decoded (an upright photo), so
    /// that it may be sent as it grows; false once the photo turned out to go as the original.
    public var writesAsItDecodes: Bool {
        switch stage {
        case .failed, .broken, .undecoded: false
        default: writer?.streams ?? false
        }
    }

    /// Bytes of the rendition in its file so far: an upright photo's grows as it is decoded.
    public var written: Int64 { writer?.written ?? 0 }

    /// Feeds the next bytes of the photo, in order from its first byte, and decodes (and
    /// encodes) what they allow.
    public func feed(_ bytes: UnsafeRawBufferPointer) -> Progress {
        switch stage {
        case .collecting: head += bytes
        case .starting, .decoding, .finishing: break
        case .written, .undecoded, .failed, .broken: return .hasEnough
        }
        do { try decoder.append(bytes) } catch {
            stage = .failed("the photo could not be decoded (\(error))")
            return .hasEnough
        }
        return advance()
    }

    /// Ends the photo: every byte of it was fed, or as many as ``feed(_:)`` wanted, and the
    /// photo (open at `photo`, read only to copy it with edited metadata; `name` is its path in
    /// messages) is complete. The rendition's file is then complete and fsynced.
    public func finish(photo: Int32, name: String) throws(RenditionError) -> Outcome {
        if advance() == .needsBytes {
            decoder.endInput()
            _ = advance()
        }
        switch stage {
        case .written:
            do {
                try Durable.sync(output)
            } catch {
                discardOutput()
                throw RenditionError.writing(path: destination?.path ?? "", error)
            }
            let bytes = written
            close(output)
            output = -1
            let (width, height) = plan?.outputSize ?? (0, 0)
            return .made(bytes: bytes, width: width, height: height, notes: plan?.notes ?? [])
        case .undecoded:
            guard let plan, case .copyWithMetadata = plan.work else {
                if let plan, case .sendOriginal(let reason) = plan.work { return .original(reason: reason) }
                return .original(reason: "it is not a readable JPEG")
            }
            let data = try Self.readWhole(photo, path: name)
            let copy = Array(data.prefix(2)) + plan.metadata.bytes + Array(data[plan.segments.restStart...])
            try Self.write(copy, to: destination)
            return .made(bytes: Int64(copy.count), width: plan.outputSize.width, height: plan.outputSize.height, notes: plan.notes)
        case .failed(let reason):
            discardOutput()
            return .original(reason: reason)
        case .broken(let error):
            discardOutput()
            throw error
        case .collecting, .starting, .decoding, .finishing:
            discardOutput()
            return .original(reason: "the photo could not be decoded (it ends before its image does)")
        }
    }

    /// Takes the decoder as far as the bytes fed allow.
    private func advance() -> Progress {
        do {
            while true {
                switch stage {
                case .collecting:
                    guard let header = try decoder.header() else { return .needsBytes }
                    let prepared = RenditionPlan.make(head, header: header, spec: spec)
                    head = []
                    switch prepared {
                    case .failure(let unusable):
                        stage = .failed(unusable.reason)
                    case .success(let ready):
                        plan = ready
                        if case .resize = ready.work { stage = .starting } else { stage = .undecoded }
                    }
                case .starting:
                    guard let plan, case .resize(let size, let scale) = plan.work else { return .hasEnough }
                    guard let sources = try decoder.start(scale: scale) else { return .needsBytes }
                    guard let fd = openOutput() else { return .hasEnough }
                    writer = RenditionWriter(plan: plan, size: size, sourceSizes: sources, quality: spec.quality, encoder: encoder, fd: fd)
                    stage = .decoding
                case .decoding:
                    let done = try decoder.readStrips()
                    try writer?.take(from: decoder)
                    guard done else { return .needsBytes }
                    stage = .finishing
                case .finishing:
                    guard try decoder.finish() else { return .needsBytes }
                    try writer?.finish()
                    stage = .written
                case .written, .undecoded, .failed, .broken:
                    return .hasEnough
                }
            }
        } catch let failure as JPEGStreamEncoder.Failure {
            if case .writing(let errno) = failure {
                stage = .broken(.writing(path: destination?.path ?? "", errno))
            } else {
                stage = .failed("the rendition could not be encoded (\(failure))")
            }
        } catch {
            if case .collecting = stage {
                stage = .failed(Self.unreadable(head, error))
                head = []
            } else {
                stage = .failed("the photo could not be decoded (\(error))")
            }
        }
        return .hasEnough
    }

    /// Creates the rendition's file; nil (and the stage broken) when it cannot be.
    private func openOutput() -> Int32? {
        guard let destination else { return nil }
        let fd = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            stage = .broken(.writing(path: destination.path, Errno.current("open")))
            return nil
        }
        output = fd
        return fd
    }

    /// Closes and removes a rendition's file that will not be finished.
    private func discardOutput() {
        guard output >= 0 else { return }
        close(output)
        output = -1
        if let destination { unlink(destination.path) }
    }

    /// Why a photo whose header libjpeg could not read is sent as it is.
    private static func unreadable(_ head: [UInt8], _ failure: any Error) -> String {
        do {
            _ = try JPEGSegments(head)
        } catch {
            return error == .notJPEG ? "it is not a JPEG" : "it is not a readable JPEG: \(error.description)"
        }
        return "it is not a readable JPEG (\(failure))"
    }

    /// The whole photo open at `fd`, for a copy with edited metadata.
    private static func readWhole(_ fd: Int32, path: String) throws(RenditionError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            guard count >= 0 else { throw .io(path: path, reason: "\(Errno.current("read"))") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    private static func write(_ bytes: [UInt8], to url: URL?) throws(RenditionError) {
        guard let url else { return }
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RenditionError.writing(path: url.path, Errno.current("open")) }
        defer { close(fd) }
        do {
            try AtomicFile.writeAll(fd, bytes)
        } catch {
            throw .writing(path: url.path, error)
        }
        do { try Durable.sync(fd) } catch { throw .writing(path: url.path, error) }
    }
}
