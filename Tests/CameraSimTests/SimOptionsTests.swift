import CommandLineOptions
import TestSupport
import XCTest

@testable import CameraSim

final class SimOptionsTests: XCTestCase {
    func testParsesEveryFlag() throws {
        let options = try SimOptions.parse([
            "--profile", "nikon", "--host", "0.0.0.0", "--port=25740", "--photos", "/tmp/p",
            "--photo-size", "2M", "--photo-dimensions", "320x200", "--raw", "--raw-size", "5k",
            "--shoot-every", "500ms", "--burst", "3", "--export", "/tmp/e", "--seed", "9",
            "--rate-limit", "100k", "--random-split", "--busy-after-connect", "2s", "--busy-rate", "0.25",
            "--drop-after-bytes", "1000", "--drop-during-transfer", "2", "--event-timeout", "3s", "--verbose",
            "--drop-every", "3M", "--property-every", "0", "--property-flood", "40", "--idle-timeout", "0",
        ])
        XCTAssertEqual(options.profile, .nikon)
        XCTAssertEqual(options.host, "0.0.0.0")
        XCTAssertEqual(options.port, 25740)
        XCTAssertEqual(options.photosDirectory, "/tmp/p")
        XCTAssertEqual(options.photoSize, 2_000_000)
        XCTAssertEqual(options.photoWidth, 320)
        XCTAssertEqual(options.photoHeight, 200)
        XCTAssertTrue(options.raw)
        XCTAssertEqual(options.rawSize, 5_000)
        XCTAssertEqual(options.shootEvery, 0.5)
        XCTAssertEqual(options.burst, 3)
        XCTAssertEqual(options.exportDirectory, "/tmp/e")
        XCTAssertEqual(options.seed, 9)
        XCTAssertEqual(options.faults.bytesPerSecond, 100_000)
        XCTAssertTrue(options.faults.randomSplit)
        XCTAssertEqual(options.faults.busyAfterConnect, 2)
        XCTAssertEqual(options.faults.busyRate, 0.25)
        XCTAssertEqual(options.faults.dropAfterBytes, 1000)
        XCTAssertEqual(options.faults.dropDuringTransfer, 2)
        XCTAssertEqual(options.faults.eventChannelTimeout, 3)
        XCTAssertTrue(options.verbose)
        XCTAssertEqual(options.faults.dropEvery, 3_000_000)
        XCTAssertNil(options.propertyChangeEvery)
        XCTAssertEqual(options.propertyFlood, 40)
        XCTAssertEqual(options.idleTimeout, 0)
        let defaults = try SimOptions.parse(["--profile", "canon-eos"])
        XCTAssertEqual(defaults.propertyChangeEvery, 20)
        XCTAssertEqual(defaults.idleTimeout, 30, "like real bodies, an idle client is dropped after 30 s")
    }

    func testBadFlagsNameTheFlag() {
        let cases: [([String], String)] = [
            (["--port", "15740"], "--profile"),
            (["--profile", "leica"], "--profile"),
            (["--profile", "generic", "--port", "70000"], "--port"),
            (["--profile", "generic", "--shoot-every", "soon"], "--shoot-every"),
            (["--profile", "generic", "--busy-rate", "2"], "--busy-rate"),
            (["--profile", "generic", "--photo-size"], "--photo-size"),
            (["--profile", "generic", "--frobnicate"], "--frobnicate"),
            (["--profile", "nikon", "--capture-to", "memory"], "--capture-to"),
            (["--profile", "generic", "--drop-every", "0"], "--drop-every"),
            (["--profile", "canon-eos", "--property-flood", "-1"], "--property-flood"),
            (["--profile", "canon-eos", "--idle-timeout", "later"], "--idle-timeout"),
            (["--profile", "generic", "--burst", "2", "--burst", "3"], "--burst"),
            (["--profile", "generic", "shoot"], "shoot"),
        ]
        for (arguments, flag) in cases {
            XCTAssertThrowsError(try SimOptions.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue("\(error)".contains(flag), "\(arguments): \(error)")
            }
        }
    }

    /// camera-sim reads durations and sizes as every relay command does (RelayCore's grammar).
    func testDurationsAndSizesUseRelaysOneGrammar() throws {
        let options = try SimOptions.parse([
            "--profile", "generic", "--photo-size", "256KiB", "--raw-size", "1.5M",
            "--idle-timeout", "1h", "--shoot-every", "1500ms", "--event-timeout", "0.5m",
        ])
        XCTAssertEqual(options.photoSize, 262_144)
        XCTAssertEqual(options.rawSize, 1_500_000)
        XCTAssertEqual(options.idleTimeout, 3600)
        XCTAssertEqual(options.shootEvery, 1.5)
        XCTAssertEqual(options.faults.eventChannelTimeout, 30)
        for bad in [
            ["--shoot-every", "1.5.2s"], ["--idle-timeout", "-1s"], ["--photo-size", "1e6"], ["--rate-limit", "nan"],
            ["--idle-timeout", "2d"], ["--photo-size", "1G"],
        ] {
            XCTAssertThrowsError(try SimOptions.parse(["--profile", "generic"] + bad), "\(bad)") { error in
                XCTAssertTrue("\(error)".hasPrefix("\(bad[0]) '\(bad[1])' "), "\(error)")
            }
        }
    }

    func testBadFlagExitsWithUsageCodeAndNamesTheFlag() throws {
        let result = try Subprocess.run(
            TestPaths.relayExecutable, ["camera-sim", "--profile", "generic", "--burst", "zero"],
            timeout: 30)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("--burst"), result.stderr)
        XCTAssertTrue(result.stderr.contains("usage: relay camera-sim"), result.stderr)
    }

    func testMissingPhotosFolderIsReportedWithItsPath() throws {
        let result = try Subprocess.run(
            TestPaths.relayExecutable,
            ["camera-sim", "--profile", "generic", "--port", "0", "--photos", "/nonexistent/photos"],
            timeout: 30)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("/nonexistent/photos"), result.stderr)
    }

    func testVendorQuirkFlagsAndProfileDefaults() throws {
        let z = try SimOptions.parse(["--profile", "nikon-z", "--computer-mode", "off", "--object-info-busy", "1s"])
        XCTAssertFalse(z.quirks.computerMode)
        XCTAssertEqual(z.quirks.objectInfoBusySeconds, 1)
        let sony = try SimOptions.parse(["--profile", "sony", "--sdio-handshake", "optional", "--sessions-per-activation", "0"])
        XCTAssertTrue(sony.captureToMemory, "a Sony in PC Remote keeps shots in camera memory")
        XCTAssertFalse(sony.quirks.sdioHandshakeRequired)
        XCTAssertEqual(sony.quirks.sessionsPerActivation, 0)
        XCTAssertTrue(try SimOptions.parse(["--profile", "canon-r5m2"]).captureToMemory)
        XCTAssertEqual(
            try SimOptions.parse(["--profile", "canon-r5m2", "--memory-object-info", "works"]).quirks.memoryObjectInfoFails,
            false)
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "sony", "--capture-to", "card"]))
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "nikon", "--capture-to", "memory"]))
        XCTAssertThrowsError(try SimOptions.parse(["--profile", "nikon-z", "--computer-mode", "maybe"])) { error in
            XCTAssertEqual((error as? CommandFailure)?.message, "--computer-mode 'maybe': expected on or off")
            XCTAssertEqual((error as? CommandFailure)?.code, .usage)
        }
        XCTAssertTrue(SimOptions.spec.help.contains("--sessions-per-activation"))
    }
}
