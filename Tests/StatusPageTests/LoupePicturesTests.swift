import Foundation
import RelayCore
import Rendition
import RunEvents
import TestSupport
import Testing

@testable import StatusPage

#if canImport(Glibc)
    import Glibc
#endif

/// The editor's loupe: the size buckets and the cache (pure), then both routes over HTTP against
/// the real server, with a portrait photo (stored sideways, EXIF orientation 6) and a grey
/// "rendition" that shows which file a picture was made from.
@Suite struct LoupePicturesTests {
    @Test func theBucketFillsTheScreenAndIsNeverLargerThanThePhoto() {
        #expect(LoupeSizes.bucket(screenEdge: 390 * 3, photoEdge: 8192) == 1280, "a phone at 3×")
        #expect(LoupeSizes.bucket(screenEdge: 1280.4, photoEdge: 8192) == 1280)
        #expect(LoupeSizes.bucket(screenEdge: 1281, photoEdge: 8192) == 1600)
        #expect(LoupeSizes.bucket(screenEdge: 200, photoEdge: 8192) == 640)
        #expect(LoupeSizes.bucket(screenEdge: 2560 * 2, photoEdge: 8192) == 3840, "a 5K screen gets the largest")
        #expect(LoupeSizes.bucket(screenEdge: 2560, photoEdge: 2000) == 2000, "never larger than the photo")
    }

    @Test func theCacheDropsTheLeastRecentlyUsedPastItsBytesOrCount() {
        var cache = LoupeCache(byteLimit: 10, countLimit: 3)
        cache.insert("a", [1, 2, 3, 4])
        cache.insert("b", [1, 2, 3, 4])
        #expect(cache.take("a") == [1, 2, 3, 4])
        cache.insert("c", [1, 2, 3, 4])
        #expect(cache.keys == ["a", "c"], "b was the least recently used")
        #expect(cache.bytes == 8)
        cache.insert("d", [1])
        cache.insert("e", [1])
        #expect(cache.keys == ["c", "d", "e"], "at most three")
    }

    /// A server with the editor's page, a desk holding `photo` (and `renditions`) as "p1", and
    /// a GET with the editor's token.
    struct Served {
        let server: StatusServer
        let folder: URL

        init(photo: (URL) throws -> Void, renditions: [String] = []) throws {
            folder = try TestPaths.makeTemporaryDirectory("loupe")
            try photo(folder.appendingPathComponent("p1.jpg"))
            var options = StatusOptions(address: StatusAddress(host: "127.0.0.1", family: .ipv4, port: 0), token: nil)
            options.editorToken = "editor"
            server = try StatusServer.start(options, bus: RunEventBus())
            let folder = folder
            server.attach(
                ReviewDesk(
                    photos: { [] }, version: { 1 }, decide: { _, _, _ in [:] }, file: { _ in nil },
                    pictures: { id in
                        id == "p1"
                            ? ReviewDesk.Pictures(
                                original: folder.appendingPathComponent("p1.jpg"),
                                renditions: renditions.map { folder.appendingPathComponent($0) })
                            : nil
                    }), holding: [], selects: false)
        }

        func get(_ path: String) throws -> RawHTTP.Response {
            try RawHTTP.send(
                host: "127.0.0.1", port: Int(server.address.port), method: "GET", path: path, headers: ["Authorization": "Bearer editor"],
                body: Data())
        }

        /// The head of a JPEG answered.
        func head(_ response: RawHTTP.Response) throws -> PhotoHead {
            let file = folder.appendingPathComponent("answer-\(UUID().uuidString).jpg")
            try response.body.write(to: file)
            let fd = open(file.path, O_RDONLY)
            defer { close(fd) }
            return try PhotoHead.read(fd)
        }

        func stop() {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func theViewIsFittedUprightFromTheSmallestLargeEnoughFile() throws {
        let served = try Served(
            photo: { try CameraJPEG.write(to: $0, .init(width: 3000, height: 2000, orientation: 6, seed: 9)) }, renditions: ["p1.r.jpg"])
        defer { served.stop() }
        try Self.greyJPEG(width: 1000, height: 1500, to: served.folder.appendingPathComponent("p1.r.jpg"))
        let phone = try served.get("/review/view/p1.jpg?w=640&dpr=2")
        #expect(phone.status == 200)
        #expect(phone.headers["content-type"] == "image/jpeg")
        #expect(phone.headers["cache-control"] == "private, max-age=86400")
        #expect(phone.headers["x-original-width"] == "2000")
        #expect(phone.headers["x-original-height"] == "3000")
        let small = try served.head(phone)
        #expect([small.width, small.height, small.components] as [Int] == [853, 1280, 1], "from the grey rendition, 1500 ≥ 1280")
        #expect(small.orientation == .up)
        let again = try served.get("/review/view/p1.jpg?w=640&dpr=2")
        #expect(again.body == phone.body, "made once, kept")
        let laptop = try served.get("/review/view/p1.jpg?w=1000&dpr=2")
        let large = try served.head(laptop)
        #expect([large.width, large.height, large.components] as [Int] == [1365, 2048, 3], "from the photo: the rendition is too small")
        let huge = try served.head(try served.get("/review/view/p1.jpg?w=4000"))
        #expect([huge.width, huge.height] as [Int] == [2000, 3000], "never larger than the photo")
    }

    @Test func theCropIsAHundredPercentRectangleOfTheUprightPhoto() throws {
        let served = try Served(photo: { try CameraJPEG.write(to: $0, .init(width: 3000, height: 2000, orientation: 6, seed: 9)) })
        defer { served.stop() }
        let crop = try served.get("/review/crop/p1.jpg?x=0.5&y=0.5&w=800&h=600")
        #expect(crop.status == 200)
        #expect(crop.headers["content-type"] == "image/jpeg")
        let headers: [String?] = ["x-crop-left", "x-crop-top", "x-crop-width", "x-crop-height", "x-original-width", "x-original-height"].map
        {
            crop.headers[$0]
        }
        #expect(headers == ["600", "1200", "800", "600", "2000", "3000"])
        let head = try served.head(crop)
        #expect([head.width, head.height] as [Int] == [800, 600])
        let corner = try served.get("/review/crop/p1.jpg?x=1&y=1&w=10&h=99999")
        let cornerHeaders: [String?] = ["x-crop-left", "x-crop-top", "x-crop-width", "x-crop-height"].map { corner.headers[$0] }
        #expect(cornerHeaders == ["1936", "600", "64", "2400"])
        #expect(try served.get("/review/crop/p1.jpg?x=1&y=1&w=10&h=99999").body == corner.body)
    }

    @Test func refusalsAreJSONSentences() throws {
        let served = try Served(photo: { try Data("not a photo".utf8).write(to: $0) })
        defer { served.stop() }
        for (path, status) in [
            ("/review/view/p1.jpg?w=1000", 415), ("/review/crop/p1.jpg?x=0.5&y=0.5&w=800&h=600", 415),
            ("/review/view/p2.jpg?w=1000", 404), ("/review/view/p1.jpg", 400), ("/review/view/p1.jpg?w=1000&dpr=x", 400),
            ("/review/crop/p1.jpg?x=2&y=0.5&w=800&h=600", 400), ("/review/crop/p1.jpg?x=0.5&y=0.5", 400),
        ] {
            let answer = try served.get(path)
            #expect(answer.status == status, "\(path)")
            #expect(answer.headers["content-type"] == "application/json", "\(path)")
            let json = try JSONSerialization.jsonObject(with: answer.body) as? [String: String]
            #expect(json?["error"]?.isEmpty == false, "\(path)")
        }
        let stranger = try RawHTTP.get(host: "127.0.0.1", port: Int(served.server.address.port), path: "/review/view/p1.jpg?w=1000")
        #expect(stranger.status == 401)
    }

    @Test func aRequestTheBusyPoolTurnsAwayIsAnswered503WithRetryAfter() throws {
        let pool = PicturePool(slots: 1, pageLimit: 0)
        let held = LockedBox((holding: false, release: false))
        let holder = Thread {
            pool.delivery {
                held.change { $0.holding = true }
                held.wait { $0.release ? .ready(()) : .until(nil) }
            }
        }
        holder.start()
        defer { held.change { $0.release = true } }
        let deadline = Date().addingTimeInterval(10)
        let holding = held.wait { $0.holding ? .ready(true) : Date() >= deadline ? .ready(false) : .until(deadline) }
        try #require(holding, "the delivery holds the pool's one slot")
        let desk = ReviewDesk(
            photos: { [] }, version: { 1 }, decide: { _, _, _ in [:] }, file: { _ in URL(fileURLWithPath: "/dev/null") })
        let answer = ReviewRouter(token: "editor").respond(
            to: StatusRequest(
                method: "GET", path: "/review/crop/p1.jpg", tokenParameter: "editor",
                arguments: ["x": "0.5", "y": "0.5", "w": "64", "h": "64"]),
            desk: desk, thumbnails: nil, loupe: LoupePictures(pool: pool))
        #expect(answer.status == 415, "a file that is not a JPEG is refused before it queues")
        let folder = try TestPaths.makeTemporaryDirectory("loupe-busy")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("p1.jpg")
        try CameraJPEG.write(to: photo, .init(width: 600, height: 400))
        let busy = ReviewRouter(token: "editor").respond(
            to: StatusRequest(
                method: "GET", path: "/review/crop/p1.jpg", tokenParameter: "editor",
                arguments: ["x": "0.5", "y": "0.5", "w": "64", "h": "64"]),
            desk: ReviewDesk(photos: { [] }, version: { 1 }, decide: { _, _, _ in [:] }, file: { _ in photo }), thumbnails: nil,
            loupe: LoupePictures(pool: pool))
        #expect(busy.status == 503)
        #expect(busy.headers["Retry-After"] == "1")
        #expect(busy.contentType == "application/json")
    }

    /// An upright grey JPEG of `width`×`height` (a gradient), written by libjpeg-turbo's cjpeg.
    static func greyJPEG(width: Int, height: Int, to url: URL) throws {
        let pgm = url.deletingPathExtension().appendingPathExtension("pgm")
        var bytes = Array("P5\n\(width) \(height)\n255\n".utf8)
        for y in 0..<height { bytes += (0..<width).map { UInt8(truncatingIfNeeded: $0 / 4 + y / 6) } }
        try Data(bytes).write(to: pgm)
        let cjpeg = try #require(Subprocess.which("cjpeg"), "cjpeg is missing: scripts/install-deps.sh test installs libjpeg-turbo-progs")
        let result = try Subprocess.run(cjpeg, ["-grayscale", "-quality", "85", "-outfile", url.path, pgm.path])
        try #require(result.status == 0, "\(result.stderr)")
    }
}
