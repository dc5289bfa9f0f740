import CommandLineOptions
import RelayCore
import Tether
import XCTest

@testable import RelayCLI

/// Each command's options are declared once; these tests hold the parser, the help and the
/// defaults to that declaration, so none of them can drift from the others.
final class CommandSpecTests: XCTestCase {
    /// Every option list a parser is built from, with the help that must show it.
    private var parsers: [(command: String, options: [OptionSpec], help: String)] {
        RelayCommandLine.commands.map { ($0.name, $0.options, $0.help) }
            + [
                ("config", ConfigCommand.addOptions, ConfigCommand.spec.help),
                ("config", ConfigCommand.listOptions, ConfigCommand.spec.help),
            ]
    }

    /// The arguments that give `option` once.
    private func giving(_ option: OptionSpec) -> [String] {
        option.kind == .flag ? [option.name] : [option.name, option.defaultValue ?? "x"]
    }

    func testEveryOptionAParserAcceptsIsInItsCommandsHelp() throws {
        for (command, options, help) in parsers {
            for option in options {
                XCTAssertNoThrow(try Arguments(giving(option), options, command: command), "\(command) \(option.name)")
                XCTAssertTrue(
                    help.contains("  \(option.alias.map { "\($0), " } ?? "")\(option.name)"), "\(command) --help lacks \(option.name)")
            }
        }
    }

    func testEveryOptionAHelpNamesIsAcceptedByItsCommand() throws {
        for spec in RelayCommandLine.commands {
            let named = Set(spec.help.matches(of: /(^|[^\w-])(--[a-z][a-z0-9-]*)/.anchorsMatchLineEndings()).map { String($0.output.2) })
            XCTAssertFalse(named.isEmpty, spec.name)
            for name in named {
                XCTAssertTrue(spec.options.contains { $0.name == name }, "relay \(spec.name) --help names \(name), which it does not take")
            }
        }
    }

    func testNamesAreUniqueWithinACommand() {
        for (command, options, _) in parsers {
            let names = options.flatMap { [$0.name] + ($0.alias.map { [$0] } ?? []) }
            XCTAssertEqual(names.count, Set(names).count, "\(command) declares an option twice")
        }
    }

    func testUndeclaredOptionsAreRefusedNamingTheCommandsHelp() {
        XCTAssertThrowsError(try Arguments(["--timeout", "2s"], RunCommand.spec.options, command: "run")) { error in
            XCTAssertEqual((error as? CommandFailure)?.message, "unknown option --timeout (see relay run --help)")
        }
        XCTAssertThrowsError(try Arguments(["--folder", "x"], CaptureCommand.spec.options, command: "capture"))
        XCTAssertNoThrow(try Arguments(["--timeout", "2s"], DiscoverCommand.spec.options, command: "discover"))
        XCTAssertThrowsError(try Arguments(["--grace", "1s", "--grace", "2s"], RunCommand.spec.options, command: "run")) { error in
            XCTAssertEqual((error as? CommandFailure)?.message, "--grace was given 2 times; give it once")
        }
        XCTAssertThrowsError(try Arguments(["--json=yes"], RunCommand.spec.options, command: "run"))
        XCTAssertThrowsError(try Arguments(["--grace"], RunCommand.spec.options, command: "run"))
    }

    func testDefaultsAreWhatTheHelpPrintsAndReadInTheirGrammar() throws {
        var defaults = 0
        for (command, options, wrapped) in parsers {
            let help = wrapped.replacing(/\s+/, with: " ")
            for option in options {
                guard let value = option.defaultValue else { continue }
                defaults += 1
                XCTAssertTrue(help.contains("(default \(value))"), "\(command) \(option.name)")
                switch option.placeholder {
                case "DURATION": XCTAssertNotNil(DurationText.seconds(value), "\(command) \(option.name) \(value)")
                case "SIZE": XCTAssertNotNil(ByteSizeText.bytes(value), "\(command) \(option.name) \(value)")
                case "N", "Q": XCTAssertNotNil(Int(value), "\(command) \(option.name) \(value)")
                default: break
                }
            }
        }
        XCTAssertGreaterThan(defaults, 15)
    }

    /// A typed option's default is the value it configures, and the help prints it so that it
    /// reads back as the same value (`--chunk-size` once said 1M while cameras used 1 MiB).
    func testATypedDefaultIsTheValueUsedAndReadsBackFromItsHelp() throws {
        let args = try Arguments([], RunCommand.spec.options, command: "run")
        for option in [RunCommand.grace, RunCommand.retryBase, RunCommand.retryCap, CameraSourceKind.listEvery, CameraSourceKind.keepAlive]
        {
            let text = try XCTUnwrap(option.spec.defaultValue, option.name)
            XCTAssertEqual(try option.read(text), try args.value(option), option.name)
        }
        for option in [CameraSourceKind.chunkSize, RunCommand.spoolMaxBytes] {
            XCTAssertEqual(try option.read(try XCTUnwrap(option.spec.defaultValue)), try args.value(option), option.name)
        }
        XCTAssertEqual(try args.value(CameraSourceKind.chunkSize), Int64(CameraSource.Options.defaultChunkSize))
        XCTAssertEqual(
            try Arguments(["--chunk-size", "64KiB"], RunCommand.spec.options, command: "run").value(CameraSourceKind.chunkSize), 65_536)
        XCTAssertThrowsError(
            try Arguments(["--chunk-size", "1K"], RunCommand.spec.options, command: "run").value(CameraSourceKind.chunkSize)
        ) {
            XCTAssertTrue(($0 as? CommandFailure)?.message.contains("--chunk-size") ?? false, "\($0)")
        }
    }

    func testRunsDefaultsComeFromItsTable() throws {
        let args = try Arguments(["--camera", "ptpip://127.0.0.1"], RunCommand.spec.options, command: "run")
        let options = try RunCommand.runOptions(args, sources: try SourceKinds.settings(args, environment: [:]))
        XCTAssertEqual(options.workers, 2)
        XCTAssertEqual(options.graceSeconds, 15)
        XCTAssertEqual(options.limits.maxPhotos, 1000)
        XCTAssertEqual(options.limits.maxBytes, 4_000_000_000, "4G, counted as the log counts")
        XCTAssertEqual(options.policy.backoff.base, 0.5)
        XCTAssertEqual(options.policy.backoff.cap, 60)
        guard let camera = options.sources.first as? CameraSource.Options else { return XCTFail("\(options.sources)") }
        XCTAssertEqual(camera.chunkSize, 1_000_000)
        XCTAssertEqual(camera.crossCheckInterval, 10)
    }

    func testJSONAndStatusAreAcceptedByRunAndCapture() throws {
        for spec in [RunCommand.spec, CaptureCommand.spec] {
            let args = try Arguments(["--camera", "ptpip://127.0.0.1", "--json", "--status", "8080"], spec.options, command: spec.name)
            XCTAssertTrue(args.has(RunCommand.json), spec.name)
            XCTAssertEqual(try args.value(StatusArguments.status), "8080", spec.name)
        }
    }

    func testCommandHelpIsThatCommandsAndTheOverviewListsEveryCommand() throws {
        let run = RunCommand.spec.help
        XCTAssertTrue(run.hasPrefix("usage: relay run "), run)
        XCTAssertFalse(run.contains("EXIT CODES"), "relay run --help is run's, not the overview")
        XCTAssertTrue(DiscoverCommand.spec.help.contains("--timeout DURATION"))
        for spec in RelayCommandLine.commands {
            for line in spec.usage { XCTAssertTrue(RelayCommandLine.help.contains("relay \(line)"), line) }
        }
        XCTAssertTrue(RelayCommandLine.help.contains("EXIT CODES"))
    }
}
