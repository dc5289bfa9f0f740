import CommandLineOptions
import Foundation
import RelayCore
import Rendition

/// `relay rendition PHOTO`: makes the copy a config would send, so a photographer can look at
/// it (and a benchmark can time relay's own code path) before the event.
enum RenditionCommand {
    static let spec = CommandSpec(
        name: "rendition", usage: ["rendition PHOTO [--max-edge N ...|--config ID|NOTE] [-o OUT]"],
        summary: "make the copy a config would send, to look at it",
        sections: [
            .init(
                title: "RENDITION OPTIONS",
                options: RenditionOptions.options + [config.spec, output.spec])
        ])
    static let config = Option.text("--config", "ID|NOTE", "make the copy this config's rendition makes (by default the selected config's)")
    static let output = Option.text(
        "--output", "FILE", "where to write the copy (by default beside PHOTO, named for its long edge)", alias: "-o")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        guard args.positionals.count == 1, let input = args.positionals.first else {
            throw CommandFailure(.usage, "relay rendition needs one photo: relay rendition IMG_0001.JPG --max-edge 2048 [-o OUT.JPG]")
        }
        let spec: RenditionSpec
        if let given = try RenditionOptions.setting(args)?.spec {
            spec = given
        } else if let configured = try ConfigStore(home: home).resolve(try args.value(config)).renditionSpec {
            spec = configured
        } else {
            throw CommandFailure(.usage, "the config sends originals: give --max-edge 2048 (or a config with a rendition)")
        }
        let source = URL(fileURLWithPath: input)
        let output = URL(
            fileURLWithPath: try args.value(output)
                ?? source.deletingPathExtension().path + "-\(spec.maxEdge).jpg")
        let original = (try? FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int64) ?? nil
        guard let original else { throw CommandFailure(.failure, "cannot read \(source.path)") }
        let started = Date()
        let outcome = try RenditionMaker(spec: spec).make(source: source, destination: output)
        let milliseconds = Int((Date().timeIntervalSince(started) * 1000).rounded())
        switch outcome {
        case .made(let bytes, let width, let height, let notes):
            print(
                "\(source.lastPathComponent) \(ByteCountText.format(original)) → \(ByteCountText.format(bytes)) "
                    + "(\(width)×\(height), \(spec.summary)) in \(milliseconds) ms: \(output.path)")
            for note in notes { print("  \(note)") }
        case .original(let reason):
            print("\(source.lastPathComponent) would be sent as the original: \(reason)")
        }
    }
}
