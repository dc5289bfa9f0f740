import Foundation
import RelayCore
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The durability rule's helper (``Durable``). What each call leaves after a power cut is
/// checked by the power-loss suite (`scripts/chaos.sh powerloss`); here, what it does and how
/// it fails.
final class DurableTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    func testMakeFolderMakesEveryMissingFolderPrivateAndOnlyOnce() throws {
        let deep = root.appendingPathComponent("a/b/c", isDirectory: true)
        XCTAssertTrue(try Durable.makeFolder(deep))
        for folder in [root!, root.appendingPathComponent("a"), root.appendingPathComponent("a/b"), deep] {
            let mode = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o700, folder.path)
        }
        XCTAssertFalse(try Durable.makeFolder(deep), "a folder that exists is left as it is")
    }

    func testMakeFolderUnderAFileSaysSo() throws {
        try Durable.makeFolder(root)
        let file = root.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        XCTAssertThrowsError(try Durable.makeFolder(file.appendingPathComponent("sub"))) { error in
            XCTAssertEqual((error as? Errno)?.code, ENOTDIR, "\(error)")
        }
    }

    /// procfs answers fsync of its folders with EINVAL: a real folder whose sync fails, which
    /// must be an error (the kernel may not have written the names it holds), never ignored.
    func testAFolderWhoseSyncFailsIsAnError() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/proc/self"), "procfs is Linux's")
        XCTAssertThrowsError(try Durable.syncFolder("/proc/self")) { error in
            let failure = error as? Errno
            XCTAssertEqual(failure?.code, EINVAL, "\(error)")
            XCTAssertTrue(failure?.call.contains("fsync folder /proc/self") == true, "\(error)")
        }
        XCTAssertThrowsError(try Durable.syncFolder(root.appendingPathComponent("missing").path)) { error in
            XCTAssertEqual((error as? Errno)?.code, ENOENT, "a folder that cannot be opened is an error too: \(error)")
        }
    }

    func testOpenCreatingMakesTheFileOnceAndKeepsWhatItHolds() throws {
        try Durable.makeFolder(root)
        let path = root.appendingPathComponent("log.jsonl").path
        var fd = try Durable.openCreating(path, flags: O_WRONLY | O_APPEND | O_CREAT)
        try AtomicFile.writeAll(fd, Array("one\n".utf8))
        try Durable.sync(fd)
        close(fd)
        fd = try Durable.openCreating(path, flags: O_WRONLY | O_APPEND | O_CREAT)
        try AtomicFile.writeAll(fd, Array("two\n".utf8))
        close(fd)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "one\ntwo\n")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
    }

    func testRenameAndRemoveAcrossFolders() throws {
        let a = root.appendingPathComponent("a")
        let b = root.appendingPathComponent("b")
        try Durable.makeFolder(a)
        try Durable.makeFolder(b)
        try Data("photo".utf8).write(to: a.appendingPathComponent("p.jpg"))
        try Durable.rename(a.appendingPathComponent("p.jpg").path, to: b.appendingPathComponent("p.jpg").path)
        XCTAssertEqual(try Data(contentsOf: b.appendingPathComponent("p.jpg")), Data("photo".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: a.appendingPathComponent("p.jpg").path))
        XCTAssertThrowsError(try Durable.rename(a.appendingPathComponent("p.jpg").path, to: b.appendingPathComponent("q.jpg").path))
        try Durable.remove(b.appendingPathComponent("p.jpg").path)
        try Durable.remove(b.appendingPathComponent("p.jpg").path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: b.appendingPathComponent("p.jpg").path))
    }
}
