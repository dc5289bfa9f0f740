import CommandLineOptions
import Foundation
import PTPIP
import RelayCore
import SSDP
import Tether

/// `relay discover [--range RANGE] [--port N] [--timeout DURATION] [--ssdp-target HOST:PORT]...
/// [--identify] [--json]`: finds PTP/IP cameras on the local network (or the range given) at the
/// lowest cost to them, and the cameras libgphoto2 detects on USB, and prints address, and where
/// known model and serial, of each.
enum DiscoverCommand {
    static let spec = CommandSpec(
        name: "discover",
        usage: ["discover [--range RANGE] [--identify] [--json]"],
        summary: "find cameras on the local network, and the USB cameras libgphoto2 detects",
        sections: [
            .init(
                title: "DISCOVER OPTIONS",
                options: [range.spec, port.spec, timeout.spec, identify.spec, ssdpTarget.spec, json.spec],
                notes: [
                    "USB cameras libgphoto2 detects are listed too (model and port, e.g. usb:001,005), without a session. Cameras that "
                        + "announce themselves over SSDP/UPnP (Canon, Sony) are listed first, named from their UPnP description, without "
                        + "any connection to their PTP/IP port. Then every other address of the range gets a plain TCP connect to the "
                        + "PTP/IP port, closed at once: no handshake, no session, no pairing prompt; such a camera is listed without a "
                        + "model. Only --identify names it, with a PTP/IP handshake and GetDeviceInfo on that same connection (one "
                        + "connection per camera), which may show a pairing prompt or use up a one-session body."
                ])
        ])

    static let range = Option.text(
        "--range", "RANGE", "addresses to scan, e.g. 192.168.1.0/24 or 10.0.0.2-40 (default: this machine's networks)")
    static let port = Option.integer("--port", "N", "the PTP/IP port", default: Int(PTPIPClientOptions.defaultPort), in: 1...65535)
    static let timeout = Option.duration(
        "--timeout", "limit of one connection attempt and of reading a description, e.g. 500ms, 2s",
        default: DiscoveryOptions(addresses: [], guid: [], friendlyName: "").timeout, in: 0.1...60)
    static let identify = Flag("--identify", "name the cameras that did not announce themselves with a PTP/IP connection")
    static let ssdpTarget = RepeatedOption<SSDPTarget>(
        spec: .repeatable(
            "--ssdp-target", "HOST:PORT",
            "send the SSDP search to this address instead of 239.255.255.250:1900 "
                + "(may be given several times; a camera's address, or the SSDP port of a relay camera-sim)")
    ) { text throws(CommandFailure) in
        guard let target = SSDPTarget.parse(text) else {
            throw CommandFailure(.usage, "--ssdp-target '\(text)' is not HOST:PORT with an IPv4 address (e.g. 192.168.1.20:1900)")
        }
        return target
    }
    static let json = Flag(
        "--json",
        "a JSON array: host, port, url, foundBy (announced, listening, identified), manufacturer, model, "
            + "serialNumber, friendlyName, and where known serviceType, udn, refusal (why it refused relay), note (why its "
            + "description was unreadable); a USB camera libgphoto2 detects: url, model, gphoto2Port, foundBy libgphoto2")

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let addresses: [String]
        if let range = try args.value(range) {
            do { addresses = try AddressRange.parse(range) } catch { throw CommandFailure(.usage, error.description) }
        } else {
            addresses = NetworkInterfaces.defaultScanAddresses()
            guard !addresses.isEmpty else { throw CommandFailure(.source, CameraSourceError.noNetwork.description) }
        }
        let registry = try CameraRegistry(home: home)
        var options = DiscoveryOptions(addresses: addresses, guid: registry.clientGUID, friendlyName: CameraSource.friendlyName)
        if let port = try args.value(port) { options.port = UInt16(port) }
        if let timeout = try args.value(timeout) { options.timeout = timeout }
        options.identify = args.has(identify)
        var ssdp = SSDPSearchOptions()
        let targets = try args.values(ssdpTarget)
        if !targets.isEmpty { ssdp.targets = targets }
        ssdp.descriptionTimeout = options.timeout
        options.ssdp = ssdp
        let searched = ssdp.targets.map(\.description).joined(separator: ", ")
        log(
            "relay: listening for cameras announcing themselves (SSDP to \(searched)), then looking for PTP/IP cameras on "
                + "\(describe(addresses)), port \(options.port)\(options.identify ? "; naming the ones that stay silent" : "")")
        let usbCameras = gphoto2Cameras(log: log)
        let cameras = CameraDiscovery.find(options, note: { log("relay: \($0)") })
        if args.has(json) {
            try JSONOutput.print(cameras.map { Entry.network(Listed(camera: $0)) } + usbCameras.map { Entry.gphoto2(GPhoto2Listed($0)) })
        } else {
            for text in cameras.map(line) + usbCameras.map(line) { print(text) }
        }
        guard !cameras.isEmpty || !usbCameras.isEmpty else {
            throw CommandFailure(
                .failure,
                "no camera answered on \(describe(addresses)) (is it on, on this network, "
                    + "with its Wi-Fi remote/PC connection enabled? --range names other addresses), and libgphoto2 detected no USB camera")
        }
    }

    /// One line of the table, saying what relay knows of the camera and what finding it cost.
    static func line(_ camera: DiscoveredCamera) -> String {
        switch camera.foundBy {
        case .announced:
            guard !camera.model.isEmpty else {
                return "\(camera.url)  a \(camera.manufacturer) camera that announced itself; its description could not "
                    + "be read (\(camera.note ?? "no details"))"
            }
            let serial = camera.serialNumber.isEmpty ? "" : "  serial \(camera.serialNumber)"
            return "\(camera.url)  \(camera.model)\(serial)  (\(camera.manufacturer); announced itself, not connected)"
        case .listening:
            if let note = camera.note { return "\(camera.url)  a PTP/IP camera relay could not identify: \(note)" }
            return "\(camera.url)  PTP/IP camera, model unknown: it did not announce itself "
                + "(relay discover --identify asks it, which costs it a connection)"
        case .identified:
            if let refusal = camera.refusal { return "\(camera.url)  a camera that refused relay: \(refusal)" }
            if camera.model.isEmpty { return "\(camera.url)  a PTP/IP camera relay could not identify: \(camera.note ?? "no answer")" }
            return "\(camera.url)  \(camera.model)  serial \(camera.serialNumber)  (\(camera.manufacturer))"
        }
    }

    /// One element of the `--json` array: a network camera or one libgphoto2 detected.
    private enum Entry: Encodable {
        case network(Listed)
        case gphoto2(GPhoto2Listed)

        func encode(to encoder: Encoder) throws {
            switch self {
            case .network(let listed): try listed.encode(to: encoder)
            case .gphoto2(let listed): try listed.encode(to: encoder)
            }
        }
    }

    /// A camera in `--json`: its fields and the address as `relay run --camera` takes it.
    private struct Listed: Encodable {
        let camera: DiscoveredCamera

        enum Keys: String, CodingKey { case url }

        func encode(to encoder: Encoder) throws {
            try camera.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(camera.url, forKey: .url)
        }
    }

    private static func log(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// "192.168.1.1–192.168.1.254 (254 addresses)".
    private static func describe(_ addresses: [String]) -> String {
        guard let first = addresses.first, let last = addresses.last else { return "no addresses" }
        return addresses.count == 1 ? first : "\(first)–\(last) (\(addresses.count) addresses)"
    }
}
