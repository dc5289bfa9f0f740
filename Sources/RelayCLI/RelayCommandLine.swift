import CBuildInfo
import CameraSim
import CommandLineOptions
import Foundation
import RelayCore

/// The `relay` command: dispatches to a subcommand and turns failures into a message on stderr
/// and a documented exit code (never a stack trace).
public enum RelayCommandLine {
    public static let version = "0.1.0"

    /// What `relay --version` prints: the version, and the commit when the build recorded it.
    static var versionLine: String {
        let commit = String(cString: relay_build_commit())
        return "relay \(version)" + (commit.isEmpty ? "" : " (commit \(commit))")
    }

    /// Runs relay with `arguments` (without the program name); returns the exit code.
    public static func main(_ arguments: [String]) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        do {
            try dispatch(arguments, environment: environment)
            return ExitCode.success.rawValue
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("relay: \(failure.message)\n".utf8))
            return failure.code.rawValue
        } catch {
            FileHandle.standardError.write(Data("relay: \(CommandFailure.from(error).message)\n".utf8))
            return CommandFailure.from(error).code.rawValue
        }
    }

    static func dispatch(_ arguments: [String], environment: [String: String]) throws {
        guard let command = arguments.first else {
            print(help)
            return
        }
        let rest = Array(arguments.dropFirst())
        let home = RelayHome.resolve(environment: environment)
        // `relay run --help`, `relay help run`: that command's usage and options.
        if let spec = commands.first(where: { $0.name == command }), rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(spec.help)
            return
        }
        if command == "help", let name = rest.first {
            guard let spec = commands.first(where: { $0.name == name }) else {
                throw CommandFailure(.usage, "unknown command '\(name)' (see relay --help)")
            }
            print(spec.help)
            return
        }
        switch command {
        case "--help", "-h", "help":
            print(help)
        case "--version", "version":
            print(versionLine)
        case "completion":
            guard rest == ["bash"] else { throw CommandFailure(.usage, "relay completion bash: the only shell relay completes is bash") }
            print(BashCompletion.script(commands: commands, otherCommands: ["completion"]), terminator: "")
        case "run":
            try RunCommand.run(rest, home: home, environment: environment)
        case "capture":
            try CaptureCommand.run(rest, home: home, environment: environment)
        case "discover":
            try DiscoverCommand.run(rest, home: home)
        case "pair":
            try PairCommand.run(rest, home: home)
        case "config":
            try ConfigCommand.run(rest, home: home)
        case "history":
            try HistoryCommand.run(rest, home: home)
        case "status":
            try StatusCommand.run(rest, home: home)
        case "retry":
            try RetryCommand.run(rest, home: home)
        case "drop":
            try DropCommand.run(rest, home: home)
        case "review":
            try ReviewCommand.run(rest, home: home)
        case "stamp":
            try StampCommand.run(rest, home: home)
        case "rendition":
            try RenditionCommand.run(rest, home: home)
        case "ftp-setup":
            try FTPArguments.runSetup(rest, home: home, environment: environment)
        case "camera-sim":
            let code = CameraSimCommand.run(arguments: rest)
            if code != 0 { exit(code) }
        default:
            throw CommandFailure(.usage, "unknown command '\(command)' (see relay --help)")
        }
    }

    /// Every command's declaration, in the order the overview lists them.
    static let commands: [CommandSpec] = [
        RunCommand.spec, FTPArguments.setupSpec, CaptureCommand.spec, DiscoverCommand.spec, PairCommand.spec, ConfigCommand.spec,
        HistoryCommand.spec, StatusCommand.spec, RetryCommand.spec, DropCommand.spec, ReviewCommand.spec, StampCommand.spec,
        RenditionCommand.spec,
        SimOptions.spec,
    ]

    /// `relay --help`: every command, the options of run, capture and discover, and what holds
    /// for all of them; `relay COMMAND --help` shows one command.
    static var help: String {
        let sections = (RunCommand.spec.sections + [CaptureCommand.timingSection] + DiscoverCommand.spec.sections).map(\.text)
        return """
            relay \(version) — moves photos from a camera to a web gallery, live.

            USAGE
            \(commands.map(\.overview).joined(separator: "\n"))
              relay COMMAND --help | relay help COMMAND
                  one command's usage and options
              relay completion bash
                  a bash completion script (the .deb installs it)
              relay --help | --version

            \(sections.joined(separator: "\n\n"))

            RENDITIONS
              A config with --max-edge sends each photo as a copy at most that many pixels on its long edge
              (2048 suits a gallery: about 0.5–1 MB instead of 15–25 MB), made as soon as the photo is in the
              spool. The copy is turned upright and keeps the photo's EXIF, IPTC, XMP and colour profile
              (--strip-gps removes the GPS directory, --strip-metadata all but the colour profile). A smaller
              photo is never enlarged; it goes as it is. A photo that cannot be decoded goes as the original,
              and the log and relay history say why.

            FILES
              State lives in $RELAY_HOME (default $XDG_STATE_HOME/relay, else ~/.local/state/relay):
              configs.json, history.json, cameras.json (relay's pairing ids, known cameras), capture.json (the last
              capture run, for --resume), seen/ (what each source already took), spool/ (spool/failed/ holds
              permanent failures).

            EXIT CODES
            \(ExitCode.allCases.map { "  \($0.rawValue)  \($0.meaning)" }.joined(separator: "\n"))
            """
    }
}

extension CommandFailure {
    /// Maps the typed errors of the library modules to a message and an exit code.
    static func from(_ error: Error) -> CommandFailure {
        switch error {
        case let failure as CommandFailure: return failure
        case let error as ConfigError: return CommandFailure(.config, error.description)
        case let error as StateFileError: return CommandFailure(.stateFile, error.description)
        default: return CommandFailure(.failure, "\(error)")
        }
    }
}
