import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a run talks to the photographer: one line per event on stderr and, when stdout is a
/// terminal, a live progress line kept at the bottom of the screen.
final class RunConsole: Sendable {
    /// The progress line on screen; `ended` once `finishProgress` ran (a late redraw must not
    /// leave a line behind the last output). Its lock also keeps the terminal's writes in order.
    private struct Line: Sendable {
        var last = ""
        var ended = false
    }

    private let line = LockedBox(Line())
    private let showsProgress: Bool

    init(showsProgress: Bool = isatty(STDOUT_FILENO) == 1) {
        self.showsProgress = showsProgress
    }

    /// Logs one event line (with the time of day) to stderr.
    func log(_ message: String) {
        let time = Self.timeOfDay(Date())
        line.withLockedValue { line in
            if showsProgress && !line.last.isEmpty { Self.write(STDOUT_FILENO, "\r\u{1B}[K") }
            Self.write(STDERR_FILENO, "\(time) \(message)\n")
            if showsProgress && !line.last.isEmpty { Self.write(STDOUT_FILENO, line.last) }
        }
    }

    /// Replaces the progress line (terminal only).
    func progress(_ text: String) {
        guard showsProgress else { return }
        line.withLockedValue { line in
            guard !line.ended else { return }
            line.last = text
            Self.write(STDOUT_FILENO, "\r\u{1B}[K" + text)
        }
    }

    /// Ends the progress line so that what follows starts on a fresh line.
    func finishProgress() {
        guard showsProgress else { return }
        line.withLockedValue { line in
            if !line.last.isEmpty { Self.write(STDOUT_FILENO, "\n") }
            line.last = ""
            line.ended = true
        }
    }

    /// `HH:mm:ss` on the 24-hour clock, in local time.
    static func timeOfDay(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// Writes all of `text`; false when the descriptor refused it (a closed pipe).
    @discardableResult
    static func write(_ fd: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Foundation.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { if errno == EINTR { continue } else { return false } }
            offset += written
        }
        return true
    }
}
