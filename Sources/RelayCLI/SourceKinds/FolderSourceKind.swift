import CommandLineOptions
import Foundation
import HotFolder
import Intake

/// `--folder PATH [--settle DURATION]`: hot folders.
enum FolderSourceKind: SourceKind {
    static let folder = RepeatedOption.texts("--folder", "PATH", "a hot folder; --camera and --folder may each be given several times")
    static let settle = Option.duration(
        "--settle", "hot folder: how long a file's size must stay unchanged before it is taken",
        default: HotFolderSource.Options(folder: URL(fileURLWithPath: "/")).settleSeconds, in: 0...3600)

    static let options: [OptionSpec] = [folder.spec, settle.spec]
    static var sourceOption: OptionSpec { folder.spec }

    static func settings(_ args: Arguments, environment: [String: String]) throws(CommandFailure) -> [any SourceSetting] {
        let settleSeconds = try args.value(settle)
        return try args.values(folder).map { path in
            var folder = HotFolderSource.Options(folder: URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL)
            if let settleSeconds { folder.settleSeconds = settleSeconds }
            return folder
        }
    }
}
