import CommandLineOptions
import PTPWire

/// Which client ids the simulated body accepts: any (the default), or only the one it was paired
/// with. A Nikon Z answers InitFail reason 1 ("rejected") to an id it was not paired with
/// (gphoto2 issue 384), and so does the simulator with `--require-guid`.
public struct SimPairing: Sendable, Equatable {
    /// The only GUID accepted; nil accepts every client.
    public var required: [UInt8]?

    public init() {}

    /// Parses the `--require-guid` value.
    init(requiring text: String, option: String) throws(CommandFailure) {
        guard let bytes = PTPIPGUID.parse(text) else {
            throw CommandFailure.badValue(option, text, expected: "32 hex digits (may be grouped with : or -)")
        }
        required = bytes
    }

    /// InitFail's reason for a client that is not paired.
    static let rejectedReason: UInt32 = 1

    /// Whether a client announcing `guid` is let in.
    func admits(_ guid: [UInt8]) -> Bool {
        required.map { $0 == guid } ?? true
    }
}
