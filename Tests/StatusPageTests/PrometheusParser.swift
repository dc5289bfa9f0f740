import Foundation
import TestSupport

/// `/metrics` read by Prometheus's own Python client (`prometheus_client.parser`), so that the
/// text is checked against an independent parser rather than against our own reading of it.
struct PrometheusParser {
    struct Sample: Decodable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Family: Decodable {
        var name: String
        var type: String
        var samples: [Sample]
    }

    let families: [Family]

    /// The value of the sample with exactly these labels.
    subscript(name: String, labels: [String: String]) -> Double? {
        families.flatMap(\.samples).first { $0.name == name && $0.labels == labels }?.value
    }

    /// Each family's type, by the name the parser gives it (counters lose `_total`).
    var types: [String: String] { Dictionary(families.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first }) }

    static let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        families = [{"name": f.name, "type": f.type,
                     "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
                    for f in text_string_to_metric_families(sys.stdin.read())]
        print(json.dumps(families))
        """

    static func samples(_ text: String) throws -> PrometheusParser {
        let folder = try TestPaths.makeTemporaryDirectory("metrics")
        let input = folder.appendingPathComponent("metrics.txt")
        try text.write(to: input, atomically: true, encoding: .utf8)
        guard let python = Subprocess.which("python3") else { throw ParseFailure(message: "python3 is missing") }
        let result = try Subprocess.run(python, ["-c", "import sys; sys.stdin = open(sys.argv[1]); exec(sys.argv[2])", input.path, script])
        guard result.status == 0 else { throw ParseFailure(message: result.stderr) }
        return PrometheusParser(families: try JSONDecoder().decode([Family].self, from: Data(result.stdout.utf8)))
    }

    struct ParseFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { "prometheus_client refused the metrics: \(message)" }
    }
}
