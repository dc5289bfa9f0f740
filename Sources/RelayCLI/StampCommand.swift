import CommandLineOptions
import Foundation
import PhotoMetadata
import RelayCore
import Stamp

/// `relay stamp set|show|clear|preview`: the credit and caption template written into every
/// photo a run sends (issue 42), kept under RELAY_HOME. A running relay takes a new template for
/// the next photo it sends.
enum StampCommand {
    static let spec = CommandSpec(
        name: "stamp",
        usage: [
            "stamp set [--for NAME] FIELD=TEXT...", "stamp show [--for NAME] [--json]", "stamp clear [--for NAME]",
            "stamp preview [--for NAME] PHOTO",
        ],
        summary: "the credit, copyright and caption written into every photo sent (IPTC and XMP), with variables",
        sections: [.init(title: "STAMP OPTIONS", options: [json.spec, photographer.spec])],
        notes: [
            "Fields written: " + StampTemplate.writtenFields.joined(separator: ", ")
                + " (keywords comma-separated); any other field (event=Spring Gala) is a variable the others use as {event}. "
                + "Variables from the photo: " + StampTemplate.photoVariables.map { "{\($0)}" }.joined(separator: " ")
                + ". set merges into the template (FIELD= removes one); a destination whose config says \"stamp\": false "
                + "gets the camera's original (relay help config says how). With --for NAME, the fields are that photographer's "
                + "(a desk's receiver login), written over the event's template in the photos they shoot."
        ])
    static let json = Flag("--json", "show: the template as JSON")
    static let photographer = Option.text(
        "--for", "NAME", "one photographer's fields (their login at a desk), over the event's template: set, show, clear, preview")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        guard let action = args.positionals.first else {
            throw CommandFailure(.usage, "relay stamp set FIELD=TEXT..., show, clear or preview PHOTO (see relay stamp --help)")
        }
        let rest = Array(args.positionals.dropFirst())
        let name = try args.value(photographer)
        if let name, !StampStore.isPhotographerName(name) {
            throw CommandFailure(.usage, "--for \(name): a photographer's name is their login (letters, digits, '-', '_' and '.')")
        }
        let event = StampStore(home: home)
        let store = name.map { StampStore(home: home, photographer: $0) } ?? event
        switch action {
        case "set": try set(rest, store: store, home: home, for: name)
        case "show":
            guard rest.isEmpty else { throw CommandFailure(.usage, "unexpected argument '\(rest[0])'") }
            try show(store, json: args.has(json))
        case "clear":
            guard rest.isEmpty else { throw CommandFailure(.usage, "unexpected argument '\(rest[0])'") }
            try home.createIfNeeded()
            try store.clear()
            print(
                name.map { "\($0)'s stamp cleared: their photos carry the event's" }
                    ?? "stamp cleared: photos are sent as the camera made them")
        case "preview":
            guard rest.count == 1 else { throw CommandFailure(.usage, "relay stamp preview PHOTO (a JPEG file)") }
            try preview(rest[0], template: try name == nil ? event.load() : merged(event: event, photographer: store), for: name)
        default:
            throw CommandFailure(.usage, "unknown stamp action '\(action)': set, show, clear or preview")
        }
    }

    private static func set(_ pairs: [String], store: StampStore, home: RelayHome, for name: String?) throws {
        guard !pairs.isEmpty else { throw CommandFailure(.usage, "relay stamp set FIELD=TEXT... (e.g. creator=\"Jane Doe\")") }
        var fields: [String: String] = [:]
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "=") else {
                throw CommandFailure(.usage, "'\(pair)' is not FIELD=TEXT (e.g. credit=\"Jane Doe / Studio\")")
            }
            fields[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        try home.createIfNeeded()
        let template: StampTemplate
        do {
            template = try store.set(fields)
        } catch let error as StampError {
            throw CommandFailure(.usage, error.description)
        }
        if let name {
            print(
                "\(name)'s stamp version \(template.version) set: their photos carry it over the event's (relay stamp show --for \(name))")
        } else {
            print("stamp version \(template.version) set: every photo sent carries it (relay stamp show)")
        }
        let sample = StampPhoto(capturedAt: Date(), model: "Canon EOS R5", serial: "000000000000", name: "IMG_0001.JPG", sequence: 1)
        for cut in template.iimCuts(for: sample) {
            print(
                "note: \(cut.field) is \(cut.bytes) bytes; IPTC IIM keeps \(cut.limit), so it is cut there in IIM only "
                    + "(XMP keeps it whole)")
        }
    }

    private static func show(_ store: StampStore, json: Bool) throws {
        let template = try store.load()
        if json { return try JSONOutput.print(template ?? (try StampTemplate(fields: [:], version: 0))) }
        guard let template, !template.fields.isEmpty else { return print("no stamp is set: photos are sent as the camera made them") }
        print("stamp version \(template.version):")
        let order = StampTemplate.writtenFields + template.fields.keys.filter { !StampTemplate.writtenFields.contains($0) }.sorted()
        for name in order { if let text = template.fields[name] { print("  \(name)=\(text)") } }
    }

    /// The event's template with the photographer's fields over it, as a run stamps their photos.
    private static func merged(event: StampStore, photographer: StampStore) throws -> StampTemplate? {
        let own = try photographer.load()
        return try event.load().map { $0.overlaid(by: own) } ?? own
    }

    private static func preview(_ path: String, template: StampTemplate?, for name: String?) throws {
        guard let template, template.writesAnything else {
            return print("no stamp is set: the photo is sent as the camera made it")
        }
        let url = URL(fileURLWithPath: path)
        guard let handle = try? FileHandle(forReadingFrom: url), let data = try? handle.read(upToCount: 1 << 20) else {
            throw CommandFailure(.usage, "cannot read \(path)")
        }
        let head = [UInt8](data)
        var photo = StampPhoto(header: PhotoHeaderIdentity(head: head), name: url.lastPathComponent, sequence: 1, capturedAt: Date())
        photo.photographer = name ?? ""
        let values = template.render(photo)
        switch HeaderStamper.stamp(head: head, values: values) {
        case .failure(let refusal):
            print("\(url.lastPathComponent) would be sent as the camera made it, without the stamp: \(refusal)")
        case .success(let stamped):
            print("\(url.lastPathComponent), stamped with version \(template.version) ({seq} is 1 here; a run uses the photo's number):")
            for field in StampTemplate.writtenFields {
                let text = field == "keywords" ? values.keywords.joined(separator: "; ") : values.text(of: field)
                guard !text.isEmpty else { continue }
                print("  \(field): \(text)")
            }
            for cut in template.iimCuts(for: photo) { print("  (\(cut.field): IPTC IIM keeps its first \(cut.limit) bytes)") }
            for note in stamped.notes { print("  \(note)") }
        }
    }
}
