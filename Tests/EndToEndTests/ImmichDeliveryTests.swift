import Foundation
import TestSupport
import XCTest

/// `relay run` from a hot folder into Immich, through `scripts/immich_standin.py` (Immich's
/// `POST /api/assets`, `bulk-upload-check` and album routes as `server/src/controllers/
/// asset-media.controller.ts` and `album.controller.ts` answer them; docs/IMMICH.md), with every
/// photo's first answer lost after Immich stored it (`--lose-first 1`): relay asks by the
/// checksum before re-sending, so each photo is one asset, in one album.
final class ImmichDeliveryTests: XCTestCase {
    func testPhotosReachOneAlbumOnceThoughTheirFirstAnswersAreLost() throws {
        let standin = try ImmichStandinProcess(arguments: ["--lose-first", "1"])
        defer {
            standin.stop()
            try? FileManager.default.removeItem(at: standin.directory)
        }
        let harness = try RelayHarness()
        harness.environment["IMMICH_KEY"] = standin.apiKeys[0]
        let added = try harness.relay(
            "config", "add", "--url", standin.configURL, "--header", "x-api-key: ${IMMICH_KEY}", "--album", "Gala", "--note", "immich")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains("warning: the API key travels in clear over immich://"), added.stderr)

        let relay = try harness.startRun(["--workers", "2"])
        defer { _ = relay.stop(signal: SIGKILL) }
        let photos = try harness.dropPhotos(4)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { ((try? harness.history()) ?? []).filter(\.success).count == 4 || !relay.isRunning },
            relay.stderr)
        XCTAssertEqual(relay.stop(), 0, relay.stderr)

        let state = try standin.state()
        XCTAssertEqual(state.assets.map(\.originalFileName).sorted(), photos.keys.sorted())
        // A cut answer on a kept-alive connection is one libcurl would send again on its own; an
        // upload to Immich is not repeatable (`UploadRequest.isRepeatable`), so the re-send is
        // relay's, which asks by the checksum first: each photo's bytes go once.
        let uploads = state.requests.filter { $0.method == "POST" && $0.path == "/api/assets" }
        let listed = state.requests.map { "\($0.method) \($0.path) \($0.deviceAssetId ?? "") \($0.status) \($0.outcome ?? "")" }
        XCTAssertEqual(state.requests.filter { $0.path == "/api/assets/bulk-upload-check" }.count, 4, "\(listed)")
        XCTAssertEqual(uploads.count, 4, "each photo sent once: \(listed)")
        XCTAssertEqual(state.albums.map(\.albumName), ["Gala"])
        XCTAssertEqual(Set(state.albums.first?.assetIds ?? []), Set(state.assets.map(\.id)))
        let history = try harness.history()
        XCTAssertTrue(
            history.filter(\.success).allSatisfy { $0.requestSummary.hasPrefix("POST immich://127.0.0.1:\(standin.port)/api/assets") },
            "\(history.map(\.requestSummary))")
        XCTAssertFalse(
            try String(contentsOf: harness.home.appendingPathComponent("configs.json"), encoding: .utf8).contains(standin.apiKeys[0]),
            "the key stays in the environment")
    }
}
