import Foundation
import RelayCore
import Rendition

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The editor's loupe, under `/review` for the editor's token: a photo fitted to the screen
/// that asks (`/review/view/ID.jpg?w=CSS_PX&dpr=RATIO`), made once per size bucket and kept in
/// memory (the least recently used dropped past ``viewBytes``), from the smallest rendition at
/// least that large (a 2048 px rendition decodes in a tenth of a 45 MP photo's time) else from
/// the photo at a DCT scale; and 100 % crops of the photo itself
/// (`/review/crop/ID.jpg?x=&y=&w=&h=`), decoded without the rest of it, the last few kept.
/// Both upright, with the photo's upright size in `X-Original-Width`/`-Height`. Made in the
/// process's ``PicturePool`` as page work: a request pushed out of its queue is answered 503
/// with `Retry-After: 1`; the same picture asked twice at once is made once.
public final class LoupePictures: Sendable {
    /// Memory the fitted pictures may hold.
    static let viewBytes = 64 << 20
    /// Crops kept (the editor pans around one photo, and may come back to it).
    static let cropCount = 8
    /// Modest, for a venue's Wi-Fi: a 2048×1536 crop of a camera's photo stays well under 1 MB.
    static let quality = 80

    private let pool: PicturePool
    private let views = LockedBox(LoupeCache(byteLimit: viewBytes, countLimit: 4096))
    private let crops = LockedBox(LoupeCache(byteLimit: 32 << 20, countLimit: cropCount))

    /// Pictures made in `pool`: the process's, or a test's own.
    public init(pool: PicturePool = .shared) {
        self.pool = pool
    }

    /// The answer to a loupe request; nil when the path is not the loupe's.
    func respond(to request: StatusRequest, desk: ReviewDesk) -> StatusResponse? {
        if let id = SmallJPEG.photoID(in: request.path, under: "/review/view/") {
            return answer { () throws(Refusal) in try view(id, request, desk) }
        }
        if let id = SmallJPEG.photoID(in: request.path, under: "/review/crop/") {
            return answer { () throws(Refusal) in try crop(id, request, desk) }
        }
        return nil
    }

    /// Why a loupe request gets no picture, as the status and sentence it is answered with.
    struct Refusal: Error {
        var status: Int
        var message: String
        var headers: [String: String] = [:]

        static let busy = Refusal(status: 503, message: PicturePool.Busy().description, headers: ["Retry-After": "1"])
    }

    private func answer(_ body: () throws(Refusal) -> StatusResponse) -> StatusResponse {
        do { return try body() } catch { return .json(error.status, ["error": error.message], headers: error.headers) }
    }

    private func view(_ id: String, _ request: StatusRequest, _ desk: ReviewDesk) throws(Refusal) -> StatusResponse {
        guard let width = Self.number(request.arguments["w"], in: 1...100_000) else {
            throw Refusal(status: 400, message: "say the screen's width in CSS pixels: ?w=…&dpr=…")
        }
        let dpr = request.arguments["dpr"] == nil ? 1 : Self.number(request.arguments["dpr"], in: 0.1...16)
        guard let dpr else { throw Refusal(status: 400, message: "dpr is the device pixel ratio, a number such as 1, 2 or 2.625") }
        let files = try Self.files(id, desk)
        let original = try Self.opened(files.original, id)
        defer { close(original.fd) }
        let bucket = LoupeSizes.bucket(screenEdge: width * dpr, photoEdge: original.head.longEdge)
        let made = try picture("view \(id) \(bucket)", in: views) { () throws(PictureError) in
            let source = Self.smallestRendition(files.renditions, atLeast: bucket)
            defer { if let source { close(source) } }
            return try FittedPicture.make(fd: source ?? original.fd, longEdge: bucket, quality: Self.quality)
        }
        return Self.jpeg(made, headers: Self.originalSize(original.head))
    }

    private func crop(_ id: String, _ request: StatusRequest, _ desk: ReviewDesk) throws(Refusal) -> StatusResponse {
        guard let x = Self.number(request.arguments["x"], in: 0...1), let y = Self.number(request.arguments["y"], in: 0...1) else {
            throw Refusal(status: 400, message: "say the point to zoom to as fractions of the picture: ?x=0.5&y=0.5 (0 to 1)")
        }
        let asked = (Self.number(request.arguments["w"], in: 1...100_000), Self.number(request.arguments["h"], in: 1...100_000))
        guard let width = asked.0, let height = asked.1 else {
            throw Refusal(status: 400, message: "say the crop's size in device pixels: &w=…&h=…")
        }
        let files = try Self.files(id, desk)
        let original = try Self.opened(files.original, id)
        defer { close(original.fd) }
        let rect = PhotoCrop.upright(x: x, y: y, width: Int(width.rounded()), height: Int(height.rounded()), in: original.head)
        let made = try picture("crop \(id) \(rect.left) \(rect.top) \(rect.width) \(rect.height)", in: crops) { () throws(PictureError) in
            try PhotoCrop.make(fd: original.fd, head: original.head, upright: rect, quality: Self.quality)
        }
        var headers = Self.originalSize(original.head)
        headers["X-Crop-Left"] = "\(rect.left)"
        headers["X-Crop-Top"] = "\(rect.top)"
        headers["X-Crop-Width"] = "\(rect.width)"
        headers["X-Crop-Height"] = "\(rect.height)"
        return Self.jpeg(made, headers: headers)
    }

    /// The picture under `key`: kept in `cache`, or made in the pool (once, however many ask at
    /// once) and kept.
    private func picture(
        _ key: String, in cache: LockedBox<LoupeCache>, _ make: () throws(PictureError) -> [UInt8]
    ) throws(Refusal) -> [UInt8] {
        if let kept = cache.withLockedValue({ $0.take(key) }) { return kept }
        let made: Result<[UInt8], PictureError>
        do {
            made = try pool.page(key: key) { () -> Result<[UInt8], PictureError> in
                // Made meanwhile by a request that was in the pool before this one.
                if let kept = cache.withLockedValue({ $0.take(key) }) { return .success(kept) }
                do throws(PictureError) { return .success(try make()) } catch { return .failure(error) }
            }
        } catch {
            throw .busy
        }
        switch made {
        case .success(let jpeg):
            cache.withLockedValue { $0.insert(key, jpeg) }
            return jpeg
        case .failure(.undecodable(let reason)):
            throw Refusal(status: 415, message: "the photo cannot be shown: \(reason)")
        case .failure(let error):
            throw Refusal(status: 500, message: error.description)
        }
    }

    /// The files of photo `id`: the desk's, or (a desk that gives only one) its thumbnail's file.
    private static func files(_ id: String, _ desk: ReviewDesk) throws(Refusal) -> ReviewDesk.Pictures {
        guard let files = desk.pictures(id) ?? desk.file(id).map({ ReviewDesk.Pictures(original: $0, renditions: []) }) else {
            throw notInSpool(id)
        }
        return files
    }

    private static func notInSpool(_ id: String) -> Refusal {
        Refusal(status: 404, message: "no photo \(id) in the spool: it was sent, rejected or dropped meanwhile")
    }

    /// The photo at `url`, open, with its head.
    private static func opened(_ url: URL, _ id: String) throws(Refusal) -> (fd: Int32, head: PhotoHead) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw notInSpool(id) }
        do { return (fd, try PhotoHead.read(fd)) } catch {
            close(fd)
            if case .undecodable(let reason) = error { throw Refusal(status: 415, message: "the photo cannot be shown: \(reason)") }
            throw Refusal(status: 500, message: error.description)
        }
    }

    /// The smallest of `renditions` (upright copies) whose long edge is at least `edge`, open.
    private static func smallestRendition(_ renditions: [URL], atLeast edge: Int) -> Int32? {
        var best: (fd: Int32, edge: Int)?
        for url in renditions {
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            guard let head = try? PhotoHead.read(fd), head.longEdge >= edge, head.longEdge < best?.edge ?? .max else {
                close(fd)
                continue
            }
            if let best { close(best.fd) }
            best = (fd, head.longEdge)
        }
        return best?.fd
    }

    private static func originalSize(_ head: PhotoHead) -> [String: String] {
        ["X-Original-Width": "\(head.upright.width)", "X-Original-Height": "\(head.upright.height)"]
    }

    private static func jpeg(_ bytes: [UInt8], headers: [String: String]) -> StatusResponse {
        var headers = headers
        headers["Cache-Control"] = "private, max-age=86400"
        return StatusResponse(status: 200, contentType: "image/jpeg", body: bytes, headers: headers)
    }

    /// A finite number within `range`, or nil.
    private static func number(_ text: String?, in range: ClosedRange<Double>) -> Double? {
        guard let text, let value = Double(text), value.isFinite, range.contains(value) else { return nil }
        return value
    }
}
