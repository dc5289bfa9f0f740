import Foundation
import TestSupport
import XCTest

/// Issue 27: a camera's FTP upload is sent on to the gallery while it arrives (cut-through), as
/// a PTP/IP download is. Its size is not known until its end, so the gallery gets it chunked; the
/// last byte goes only once the photo is committed.
final class FTPCutThroughTests: XCTestCase {
    /// The gallery's request starts while the camera is still sending, and ends with the photo
    /// byte for byte.
    func testTheGalleryGetsAPhotoWhileTheCameraSendsIt() throws {
        let ftp = try FTPRun()
        let photo = try ftp.photo("DSC_0100.JPG", bytes: 1_500_000, seed: 100)
        let sent = try ftp.camera(["--rate", "500000", ftp.path("DSC_0100.JPG")])
        let cameraDone = Date().timeIntervalSince1970
        XCTAssertTrue(sent.stdout.hasPrefix("DSC_0100.JPG 226"), sent.stdout + sent.stderr)
        try ftp.waitForPhotos(1)
        let stored = try XCTUnwrap(try ftp.gallery.photos().first)
        XCTAssertEqual(stored.name, "DSC_0100.JPG")
        XCTAssertEqual(stored.sha256, SHA256.hex(photo))
        let request = try XCTUnwrap(try ftp.gallery.uploadRequests().first)
        XCTAssertEqual(request.headers["transfer-encoding"], "chunked", "its size was not known when it started")
        // The camera took about 3 s; the gallery's request began well before it ended.
        XCTAssertLessThan(request.time, cameraDone - 1, "the upload started while the camera was sending")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { ftp.relay.stderr.contains("sent while downloading") }, ftp.relay.stderr)
    }

    /// An upload the camera cuts off ends the gallery's request without its last byte: nothing is
    /// stored, and the resumed upload is delivered once, whole.
    func testACutUploadNeverReachesTheGalleryAndItsResumeDoes() throws {
        let ftp = try FTPRun()
        let photo = try ftp.photo("DSC_0101.JPG", bytes: 800_000, seed: 101)
        XCTAssertEqual(try ftp.camera(["--rate", "400000", "--die-after", "600000", ftp.path("DSC_0101.JPG")]).status, 3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ftp.relay.stderr.contains("kept for a resume") }, ftp.relay.stderr)
        // The request that carried the cut upload has ended, unanswered by a stored photo.
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) {
                ((try? ftp.gallery.uploadRequests()) ?? []).allSatisfy { $0.status != "pending" }
            })
        XCTAssertEqual(try ftp.gallery.photos().count, 0, "a cut upload is never stored")
        let resumed = try ftp.camera(["--resume", ftp.path("DSC_0101.JPG")])
        XCTAssertTrue(resumed.stdout.hasPrefix("DSC_0101.JPG 226"), resumed.stdout + resumed.stderr)
        try ftp.waitForPhotos(1)
        let photos = try ftp.gallery.photos()
        XCTAssertEqual(photos.map(\.name), ["DSC_0101.JPG"])
        XCTAssertEqual(photos.first?.sha256, SHA256.hex(photo))
    }

    /// A gallery that wants every body's length (411 to a chunked one) gets the photo once it is
    /// complete, and every later one too, without a failure.
    func testAGalleryThatWantsALengthGetsThePhotoOnceComplete() throws {
        let gallery = try GalleryProcess(arguments: ["--length-required"])
        let ftp = try FTPRun(gallery: gallery)
        var photos: [String: Data] = [:]
        for index in 0..<2 {
            let name = "DSC_02\(index)0.JPG"
            photos[name] = try ftp.photo(name, bytes: 400_000, seed: UInt64(200 + index))
            let sent = try ftp.camera(["--rate", "800000", ftp.path(name)])
            XCTAssertTrue(sent.stdout.hasPrefix("\(name) 226"), sent.stdout + sent.stderr)
            try ftp.waitForPhotos(index + 1)
        }
        let stored = try gallery.photos()
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: stored.map { ($0.name, $0.sha256) }), photos.mapValues { SHA256.hex($0) })
        XCTAssertTrue(ftp.relay.stderr.contains("HTTP 411"), ftp.relay.stderr)
        XCTAssertFalse(
            ftp.relay.stderr.contains("upload during its download failed"), "a refused length is not a failure: \(ftp.relay.stderr)")
    }
}
