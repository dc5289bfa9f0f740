import CommandLineOptions
import Intake
import RelayCore

/// One kind of photo source as `relay run` reads it from the command line: its options (its part
/// of the help) and the sources they name. The run itself knows no kind by name
/// (`SourceSetting`); the command line knows them only through ``SourceKinds/all``.
///
/// DESIGN: a new source kind is a module whose settings conform to `SourceSetting`, plus one file
/// here conforming to `SourceKind` and one line in ``SourceKinds/all``.
protocol SourceKind {
    /// Its options, as the help and the parser take them.
    static var options: [OptionSpec] { get }
    /// The option that names one of its sources (`--camera`).
    static var sourceOption: OptionSpec { get }
    /// The sources the command line names of this kind (none when its options are not given).
    /// An option of this kind given without its source is refused, naming the option.
    static func settings(_ args: Arguments, environment: [String: String]) throws(CommandFailure) -> [any SourceSetting]
}

/// Every source kind, in the order a run starts them.
enum SourceKinds {
    static var all: [any SourceKind.Type] {
        [
            FTPArguments.self, HTTPInboxSourceKind.self, S3InboxSourceKind.self, FolderSourceKind.self, CameraSourceKind.self,
        ]
    }

    /// The sources the command line names, of `kinds`; at least one.
    static func settings(_ args: Arguments, environment: [String: String], kinds: [any SourceKind.Type] = all) throws(CommandFailure)
        -> [any SourceSetting]
    {
        guard kinds.contains(where: { args.gave($0.sourceOption) }) else {
            throw CommandFailure(
                .usage,
                "give a photo source: --camera ptpip://HOST[:PORT] (or auto) for a Wi-Fi camera, "
                    + "--camera usb for a USB camera, --ftp PORT for cameras that upload over FTP, --http PORT for other relays and phones, --inbox NOTE for an S3 bucket shared with field relays, or --folder PATH for the folder your camera or FTP server writes to"
            )
        }
        var settings: [any SourceSetting] = []
        for kind in kinds { settings += try kind.settings(args, environment: environment) }
        return settings
    }
}
