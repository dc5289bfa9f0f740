import CommandLineOptions
import Foundation
import PTPIP
import PTPWire
import RelayCore
import Tether

/// `relay pair --camera ADDRESS [--guid HEX] [--name NAME] [--wait DURATION]`: shows what to
/// press on the body, connects until the camera accepts relay (or the wait is over, or Ctrl-C),
/// and records the id and name for that address in cameras.json, where `relay run` and `relay
/// capture` find them.
enum PairCommand {
    static let spec = CommandSpec(
        name: "pair",
        usage: ["pair --camera ptpip://HOST[:PORT] [--guid HEX] [--name NAME] [--wait DURATION]"],
        summary: "pair relay with a camera, showing what to press on it; --guid and --name: the id and name of software the "
            + "body was paired with, which run and capture then use for HOST",
        sections: [
            .init(
                title: "PAIR OPTIONS",
                options: [camera.spec, guid.spec, name.spec, wait.spec])
        ])
    static let camera = Option.text("--camera", "ADDRESS", "the camera's address, ptpip://HOST[:PORT] (relay discover finds it)")
    static let guid = Option.text("--guid", "HEX", "the client id the body knows, 32 hex digits (e.g. 00:11:…:ff)")
    static let name = Option.text("--name", "NAME", "the computer name the camera shows, 1 to 64 characters")
    static let wait = Option.duration(
        "--wait", "how long to keep trying while the camera shows its pairing prompt", default: CameraPairing(camera: .auto).waitSeconds,
        in: 1...3600)

    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, spec.options, command: spec.name)
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let text = try args.required(camera, hint: "the camera's address, e.g. --camera ptpip://192.168.1.2")
        let camera: CameraAddress
        do { camera = try CameraAddress.parse(text) } catch { throw CommandFailure(.usage, error.description) }
        guard camera != .auto else {
            throw CommandFailure(
                .usage, "relay pair pairs one camera: give its address, --camera ptpip://HOST[:PORT] (relay discover finds it)")
        }
        var pairing = CameraPairing(camera: camera)
        if let guid = try args.value(guid) {
            guard let bytes = PTPIPGUID.parse(guid) else {
                throw CommandFailure(
                    .usage, "--guid '\(guid)' is not a client id: give 32 hex digits, e.g. 00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff")
            }
            pairing.guid = bytes
        }
        if let name = try args.value(name) {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard (1...64).contains(trimmed.count) else {
                throw CommandFailure(.usage, "--name must be 1 to 64 characters: the computer name the camera shows")
            }
            pairing.name = trimmed
        }
        if let wait = try args.value(wait) { pairing.waitSeconds = wait }

        let identity: (guid: [UInt8], name: String)
        do { identity = try pairing.identity(registry: try CameraRegistry(home: home)) } catch {
            throw CommandFailure.from(error)
        }
        print(
            "Pairing relay with the camera at \(camera): relay introduces itself as '\(identity.name)' "
                + "(id \(PTPIPGUID.hex(identity.guid))). On the camera:")
        for step in PairingGuide.steps(camera: camera) { print("  " + step) }
        print("relay keeps trying for \(Int(pairing.waitSeconds)) s while the camera shows its pairing prompt (Ctrl-C stops).")

        let stop = StopFlag()
        SignalWatch.watch([SIGINT, SIGTERM]) { _ in stop.stop() }
        do {
            let paired = try pairing.run(home: home, stop: stop) { line in
                FileHandle.standardError.write(Data("relay: \(line)\n".utf8))
            }
            print("paired with \(paired.model) (serial \(paired.serial)): relay run --camera \(camera) uses this pairing")
        } catch let error as StateFileError {
            throw CommandFailure(.stateFile, error.description)
        } catch CameraSourceError.notPaired(_, let reason) {
            throw CommandFailure(
                .source,
                "not paired: the camera at \(camera) still refuses relay (InitFail, \(reason.code)) "
                    + "\(stop.isStopped ? "when stopped" : "after \(Int(pairing.waitSeconds)) s"): follow the steps above, "
                    + "or give the id and name of software the body was paired with (--guid, --name)")
        } catch let error as PTPIPError {
            if case .unsupportedCamera = error { throw CommandFailure(.source, error.description) }
            throw CommandFailure(
                .source,
                "not paired: \(stop.isStopped ? "stopped" : "gave up after \(Int(pairing.waitSeconds)) s"); "
                    + "the last answer: \(error)")
        } catch {
            throw CommandFailure(.source, "\(error)")
        }
    }
}
