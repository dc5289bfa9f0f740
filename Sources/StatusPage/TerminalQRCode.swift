import CQREncode

/// A QR code drawn with block characters, so that a phone's camera opens the status page's
/// address from the terminal relay runs in. libqrencode makes the code; the drawing is pure.
public struct TerminalQRCode: Sendable, Equatable {
    /// Rows of modules, `true` for dark, without the quiet zone.
    public var modules: [[Bool]]

    public init(modules: [[Bool]]) {
        self.modules = modules
    }

    /// The code of `text` (error correction M, byte mode); nil if libqrencode cannot make one
    /// (text too long for a QR code).
    public init?(encoding text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        modules = (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
    }

    /// Two rows of modules per line of text, light modules as blocks and a quiet zone of two
    /// around: a terminal's dark background is the code's dark. Each line ends with a newline.
    public var text: String {
        let quiet = 2
        let size = modules.count + 2 * quiet
        func light(_ row: Int, _ column: Int) -> Bool {
            let (r, c) = (row - quiet, column - quiet)
            guard r >= 0, c >= 0, r < modules.count, c < modules.count else { return true }
            return !modules[r][c]
        }
        var lines = ""
        for row in stride(from: 0, to: size, by: 2) {
            for column in 0..<size {
                let top = light(row, column)
                let bottom = row + 1 < size ? light(row + 1, column) : false
                lines += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines += "\n"
        }
        return lines
    }
}
