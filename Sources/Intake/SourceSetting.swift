import RelayCore
import RunEvents
import Spool

/// A source's settings as `relay run` was given them: all a run needs to know of a source kind.
/// A new kind of source is its own module with settings that conform, plus the line of
/// `relay run` that reads its flags; the run itself knows no kind by name.
public protocol SourceSetting: Sendable {
    /// How events and the log name the source ("folder /srv/drop", "camera ptpip://…").
    var label: String { get }
    /// Why the run cannot start with this source (e.g. a hot folder that holds relay's own
    /// state), nil when it can. Checked before anything else is opened.
    func problem(home: RelayHome) -> String?
    /// The source, taking photos into `spool` and reporting through `report`.
    func makeSource(spool: Spool, home: RelayHome, report: SourceReporter) throws -> any PhotoSource
}

extension SourceSetting {
    public func problem(home: RelayHome) -> String? { nil }
}
