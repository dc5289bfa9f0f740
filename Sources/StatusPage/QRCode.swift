import CQREncode

/// A QR code, so that a phone's camera opens an address: drawn with block characters in the
/// terminal relay runs in (the status and editor's pages), or as SVG on the venue wall (the
/// guests' link). libqrencode makes the code; the drawings are pure.
public struct QRCode: Sendable, Equatable {
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

    /// The code as a standalone SVG image, dark on white with a quiet zone of four modules, one
    /// path (it scales to any size without blurring).
    public var svg: String {
        let quiet = 4
        let size = modules.count + 2 * quiet
        var path = ""
        for (row, modules) in modules.enumerated() {
            for (column, dark) in modules.enumerated() where dark {
                path += "M\(column + quiet) \(row + quiet)h1v1h-1z"
            }
        }
        return ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \##(size) \##(size)" shape-rendering="crispEdges">"##
            + ##"<rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="\##(path)"/></svg>"##
    }
}
