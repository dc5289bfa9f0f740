import Foundation
import RelayCore

/// `--json` output: the same dialect as relay's files, on stdout.
enum JSONOutput {
    static func print<T: Encodable>(_ value: T) throws {
        let data = try JSONCoding.encoder.encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}
