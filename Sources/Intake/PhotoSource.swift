import RelayCore

/// One place photos come from: a hot folder or a camera. `relay run` starts each source on its
/// own thread; a source takes photos into the spool and reports what it does through the
/// `TetherEvent` callback it was built with, until the stop flag is set.
public protocol PhotoSource: AnyObject, Sendable {
    /// What the source is, for logs and the progress line ("folder /srv/drop", "camera ptpip://…").
    var label: String { get }
    /// Takes photos until `stop` is set, then ends its work cleanly and returns.
    func run(until stop: StopFlag)
}
