import Foundation
import XCTest

@testable import RelayCLI

/// `relay completion bash`, run by bash itself: commands, each command's options, config's
/// actions and the words of a choice complete; the script offers every option the parser takes.
final class BashCompletionTests: XCTestCase {
    private func complete(_ words: [String], script: String) throws -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("relay-completion-\(UUID().uuidString).bash")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c",
            "source '\(file.path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _relay; printf '%s\\n' \"${COMPREPLY[@]}\"",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testBashCompletesCommandsOptionsAndTheirWords() throws {
        let script = BashCompletion.script(commands: RelayCommandLine.commands, otherCommands: ["completion"])
        XCTAssertEqual(try complete(["relay", "con"], script: script), ["config"])
        XCTAssertEqual(try complete(["relay", "config", "re"], script: script), ["remove"])
        XCTAssertEqual(try complete(["relay", "config", "add", "--priority", ""], script: script), ["normal", "low"])
        XCTAssertEqual(try complete(["relay", "run", "--spool-max-b"], script: script), ["--spool-max-bytes"])
        XCTAssertEqual(try complete(["relay", "run", "--grace", ""], script: script), [], "a duration is not guessed")
        XCTAssertEqual(try complete(["relay", "camera-sim", "--capture-to", ""], script: script), ["card", "memory"])
        XCTAssertTrue(try complete(["relay", "camera-sim", "--profile", "nik"], script: script).contains("nikon-z"))
        for command in RelayCommandLine.commands {
            let words = command.name == "config" ? ["relay", "config", "add", "--"] : ["relay", command.name, "--"]
            let offered = Set(try complete(words, script: script))
            for option in command.options {
                XCTAssertTrue(offered.contains(option.name), "relay \(command.name) \(option.name)")
            }
        }
    }

    func testVersionNamesTheVersion() {
        XCTAssertTrue(RelayCommandLine.versionLine.hasPrefix("relay \(RelayCommandLine.version)"))
    }
}
