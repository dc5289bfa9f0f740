import Foundation
import TestSupport
import XCTest

/// Issue 40: a destination that sends only approved photos holds each one while the backup
/// gets it at once; `relay review` decides, whether relay runs or not. The real relay
/// executable, real gallery processes, the hot folder.
final class HeldForReviewTests: XCTestCase {
    /// A held photo in `relay review list --json`.
    private struct Listed: Decodable {
        var id: String
        var name: String
        var heldFor: [String]
    }

    private func held(_ harness: RelayHarness) throws -> [Listed] {
        let result = try harness.relay("review", "list", "--json")
        guard result.status == 0 else { throw HarnessError.command("relay review list --json: \(result.stderr)") }
        return try JSONDecoder().decode([Listed].self, from: Data(result.stdout.utf8))
    }

    /// A harness with a gallery that sends approved photos only and a backup that sends all.
    private func galleryAndBackup() throws -> (gallery: GalleryProcess, backup: GalleryProcess, harness: RelayHarness) {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: backup, note: "backup")
        let added = try harness.relay("config", "add", "--url", gallery.uploadURL, "--note", "gallery", "--send", "approved")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("sends approved photos"), added.stdout)
        return (gallery, backup, harness)
    }

    func testTheBackupGetsEveryPhotoAtOnceAndTheGalleryExactlyTheApprovedOnes() throws {
        let (gallery, backup, harness) = try galleryAndBackup()
        var relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        let dropped = try harness.dropPhotos(6)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 6 || !relay.isRunning },
            "the backup gets every photo at once:\n\(relay.stderr)")
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? self.held(harness).count) ?? 0) == 6 })
        let listed = try held(harness).sorted { $0.name < $1.name }
        XCTAssertEqual(listed.map(\.name), dropped.keys.sorted())
        XCTAssertTrue(listed.allSatisfy { $0.heldFor == ["gallery"] })
        XCTAssertEqual(try gallery.uploadRequests().count, 0, "nothing reaches the gallery before a decision")

        // While relay runs: three approved (by id prefix), two rejected (by name).
        let approved = listed.prefix(3)
        let approve = try harness.relay(["review", "approve"] + approved.map { String($0.id.prefix(8)) })
        XCTAssertEqual(approve.status, 0, approve.stderr)
        XCTAssertTrue(approve.stdout.contains("approved \(approved.first!.name): sent to gallery"), approve.stdout)
        let rejected = listed.dropFirst(3).prefix(2)
        let reject = try harness.relay(["review", "reject"] + rejected.map(\.name))
        XCTAssertEqual(reject.status, 0, reject.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) == 3 || !relay.isRunning },
            "a running relay acts on decisions within a second:\n\(relay.stderr)")
        relay.assertSays("\(rejected.first!.name) rejected by relay review: never sent to gallery")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertTrue(relay.stdout.contains("held for review: 1 for gallery") || relay.stderr.contains("held for review: 1 for gallery"))
        XCTAssertEqual(Set(try gallery.photos().map(\.name)), Set(approved.map(\.name)))
        XCTAssertEqual(try held(harness).map(\.name), [listed[5].name], "the undecided one stays held across runs")
        let status = try harness.relay("status")
        XCTAssertTrue(status.stdout.contains("held for review: 1 for gallery"), status.stdout)
        XCTAssertFalse(status.stdout.contains("wait for 'gallery'"), "a held photo waits for a decision, not for a run:\n\(status.stdout)")
        let history = try harness.history()
        XCTAssertEqual(
            Set(history.filter { $0.errorMessage == "rejected by relay review: never sent" }.map(\.fileName)), Set(rejected.map(\.name)),
            "each rejection is in the history")

        // While relay is stopped: the last one approved, and one rejection undone (within its
        // two minutes: the rejected photo was kept for that); then a run acts on both.
        let late = try harness.relay("review", "approve", listed[5].id)
        XCTAssertEqual(late.status, 0, late.stderr)
        let undo = try harness.relay("review", "undo", rejected.first!.name)
        XCTAssertEqual(undo.status, 0, undo.stderr)
        XCTAssertTrue(undo.stdout.contains("held again for gallery"), undo.stdout)
        relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) == 4 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { (try? self.held(harness).map(\.name)) == [rejected.first!.name] },
            "the undone rejection is held again")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(Set(try gallery.photos().map(\.name)), Set(approved.map(\.name) + [listed[5].name]), "none of the rejected")
        XCTAssertEqual(try backup.uploadRequests().count, 6, "the backup got each photo once")
        XCTAssertEqual(try gallery.uploadRequests().count, 4)
        let again = try harness.relay("review", "reject", approved.first!.name)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("was already sent to backup, gallery and has left the spool: nothing changes"), again.stdout)
    }

    func testAnApprovalKilledBeforeItsDeliveryIsDeliveredOnceAfterTheRestart() throws {
        let (gallery, backup, harness) = try galleryAndBackup()
        try gallery.setFaults(GalleryFaults(delay: 3))
        var relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        _ = try harness.dropPhotos(2)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? self.held(harness).count) ?? 0) == 2 || !relay.isRunning })
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 2 || !relay.isRunning })
        let approve = try harness.relay(["review", "approve"] + (try held(harness).map(\.id)))
        XCTAssertEqual(approve.status, 0, approve.stderr)
        relay.assertSays("approved by relay review: sending to gallery")
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { ((try? gallery.uploadRequests().count) ?? 0) >= 1 },
            "the gallery is answering slowly when relay is killed")
        _ = relay.stop(signal: SIGKILL, timeout: 10)
        try gallery.setFaults(GalleryFaults())
        relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? gallery.photos().count) ?? 0) == 2 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? harness.status().queued.count) ?? 1) == 0 }, "the spool empties")
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        let photos = try gallery.photos()
        XCTAssertEqual(photos.count, 2)
        XCTAssertEqual(Set(photos.map(\.name)).count, 2, "each approved photo once")
        XCTAssertEqual(try held(harness).count, 0)
    }

    /// `--send selected`: a photo whose file carries a rating (written by exiftool, as Canon
    /// bodies and editors write it) goes at once; the others are held, the backup gets all.
    func testARatingInTheFileSelectsThePhoto() throws {
        let gallery = try GalleryProcess()
        let backup = try GalleryProcess()
        let harness = try RelayHarness(sendingTo: backup, note: "backup")
        let added = try harness.relay(
            "config", "add", "--url", gallery.uploadURL, "--note", "gallery", "--send", "selected", "--min-rating", "2")
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("(selected: 2 stars or more)"), added.stdout)
        let relay = try harness.startRun(["--config", "gallery", "--config", "backup"])
        let exiftool = try XCTUnwrap(Subprocess.which("exiftool"), "exiftool (libimage-exiftool-perl) is a test dependency")
        for (seed, (name, tags)) in [
            ("IMG_0001.JPG", ["-XMP-xmp:Rating=3"]), ("IMG_0002.JPG", ["-XMP-xmp:Rating=0"]), ("IMG_0003.JPG", []),
            ("IMG_0004.JPG", ["-XMP-xmp:Rating=1"]),
        ].enumerated() {
            let staged = harness.root.appendingPathComponent(name)
            try CameraJPEG.write(to: staged, .init(width: 320, height: 240, seed: seed + 1))
            if !tags.isEmpty {
                XCTAssertEqual(try Subprocess.run(exiftool, ["-q", "-overwrite_original"] + tags + [staged.path]).status, 0)
            }
            try FileManager.default.moveItem(at: staged, to: harness.dropFolder.appendingPathComponent(name))
        }
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 4 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? gallery.photos().count) ?? 0) == 1 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 30) { ((try? self.held(harness).count) ?? 0) == 3 })
        XCTAssertEqual(relay.stop(), 0, relay.stderr)
        XCTAssertEqual(try gallery.photos().map(\.name), ["IMG_0001.JPG"], "only the rated photo is selected")
        XCTAssertEqual(Set(try held(harness).map(\.name)), ["IMG_0002.JPG", "IMG_0003.JPG", "IMG_0004.JPG"], "one star is below two")
    }

    func testBadReviewCommandsSayWhatToDo() throws {
        let harness = try RelayHarness()
        let list = try harness.relay("review", "list")
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("no photo is held for review"), list.stdout)
        let unknown = try harness.relay("review", "approve", "0123abcd")
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no photo '0123abcd' in the spool"), unknown.stderr)
        XCTAssertEqual(try harness.relay("review", "approve").status, 2)
        XCTAssertEqual(try harness.relay("review", "bless", "x").status, 2)
        let stars = try harness.relay("config", "add", "--url", "https://example.com/u", "--min-rating", "2")
        XCTAssertEqual(stars.status, 2)
        XCTAssertTrue(stars.stderr.contains("--min-rating goes with --send selected"), stars.stderr)
        XCTAssertEqual(
            try harness.relay("config", "add", "--url", "https://example.com/u", "--send", "selected", "--min-rating", "6").status, 2)
        let badRule = try harness.relay("config", "add", "--url", "https://example.com/u", "--send", "some")
        XCTAssertEqual(badRule.status, 2)
        XCTAssertTrue(badRule.stderr.contains("--send 'some': expected all, approved, selected or approved-or-selected"), badRule.stderr)
    }
}

/// The same rule on the camera road: photos the simulator shoots are held for the gallery
/// until approved, while the backup gets them at once.
final class HeldCameraPhotosTests: XCTestCase {
    func testACameraRunHoldsShotsForTheGalleryUntilApproved() throws {
        let camera = try CameraRun(profile: "canon-eos", ["--initial-photos", "0"], note: "gallery")
        XCTAssertEqual(
            try camera.harness.relay("config", "add", "--url", camera.gallery.uploadURL, "--note", "gallery", "--send", "approved").status,
            0)
        let backup = try GalleryProcess()
        XCTAssertEqual(try camera.harness.relay("config", "add", "--url", backup.uploadURL, "--note", "backup").status, 0)
        let relay = try camera.startConnected(["--config", "gallery", "--config", "backup", "--json"])
        camera.sim.shootByStdin(3)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 60) { ((try? backup.photos().count) ?? 0) == 3 || !relay.isRunning }, relay.stderr)
        XCTAssertTrue(
            Subprocess.waitUntil(timeout: 30) { relay.stdout.components(separatedBy: "\"photo.held\"").count - 1 == 3 },
            "a photo.held event for each shot:\n\(relay.stdout.suffix(3000))")
        XCTAssertEqual(try camera.gallery.uploadRequests().count, 0)
        let first = try XCTUnwrap(backup.photos().map(\.name).sorted().first)
        let approve = try camera.harness.relay("review", "approve", first)
        XCTAssertEqual(approve.status, 0, approve.stderr)
        try camera.waitForPhotos(1, relay: relay)
        XCTAssertTrue(Subprocess.waitUntil(timeout: 10) { relay.stdout.contains("\"photo.approved\"") }, String(relay.stdout.suffix(3000)))
        XCTAssertEqual(relay.stop(signal: SIGTERM, timeout: 30), 0, relay.stderr)
        XCTAssertEqual(try camera.gallery.photos().map(\.name), [first])
        try camera.assertByteIdentical()
    }
}
