import CommandLineOptions
import Foundation
import RelayCore

/// `relay history [-n N] [--failed] [--json]`.
enum HistoryCommand {
    static let spec = CommandSpec(
        name: "history",
        usage: ["history [-n N] [--failed] [--json]"],
        summary: "the last upload attempts, newest first",
        sections: [
            .init(
                title: "HISTORY OPTIONS",
                options: [count.spec, failed.spec, json.spec])
        ])
    static let count = Option.integer(
        "--count", "N", "show this many attempts, at most \(HistoryLog.limit)", default: HistoryLog.limit, in: 1...HistoryLog.limit,
        alias: "-n")
    static let failed = Flag("--failed", "only the attempts that failed")
    static let json = Flag("--json", "the attempts as a JSON array")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let limit = try args.value(count) ?? HistoryLog.limit
        let history = try JSONStateFile<HistoryLog>(url: home.historyFile).loadSettingAsideUnreadable()
        if let aside = history.setAside {
            FileHandle.standardError.write(
                Data("relay: history.json could not be read; it was moved aside to \(aside.lastPathComponent)\n".utf8))
        }
        guard let log = history.value else {
            if args.has(json) { return try JSONOutput.print([HistoryRecord]()) }
            print("no uploads yet")
            return
        }
        let onlyFailed = args.has(failed)
        let records = Array(log.records.filter { !onlyFailed || !$0.success }.prefix(limit))
        if args.has(json) { return try JSONOutput.print(records) }
        print(HistoryTable.render(records))
    }
}

/// The readable history table (pure, so its layout is tested).
public enum HistoryTable {
    /// The error, else the note, else the editor's caption, else which stamp the photo carried;
    /// cut to 60 characters.
    static func note(_ record: HistoryRecord) -> String {
        let caption = record.caption.flatMap { $0.caption.isEmpty ? nil : "caption: \($0.caption)" }
        let text = record.errorMessage ?? record.note ?? caption ?? record.stampVersion.map { "stamp version \($0)" } ?? ""
        return text.count > 60 ? String(text.prefix(59)) + "…" : text
    }

    public static func render(_ records: [HistoryRecord], timeZone: TimeZone = .current) -> String {
        if records.isEmpty { return "no matching uploads" }
        // A run with several destinations says which one each attempt went to.
        let showDestination = records.contains { $0.destination != nil }
        // A desk's history says who shot each photo.
        let showPhotographer = records.contains { $0.photographer != nil }
        var header = ["TIME", "FILE", "RESULT", "HTTP", "SIZE", "TIME TAKEN", "TRY", "ERROR / NOTE"]
        if showDestination { header.insert("DESTINATION", at: 2) }
        if showPhotographer { header.insert("BY", at: 2) }
        let rows = records.map { record -> [String] in
            var row = [
                Self.time(record.timestamp, timeZone: timeZone),
                record.fileName,
                record.decision.map(\.rawValue) ?? (record.success ? "ok" : "failed"),
                record.statusCode.map(String.init) ?? "-",
                record.sizeText,
                String(format: "%.2fs", record.durationSeconds),
                String(record.attempt),
                Self.note(record),
            ]
            if showDestination { row.insert(record.destination ?? "-", at: 2) }
            if showPhotographer { row.insert(record.photographer ?? "-", at: 2) }
            return row
        }
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    static func time(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
