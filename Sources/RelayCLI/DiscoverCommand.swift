import Foundation
import PTPIP
import RelayCore
import Tether

/// `relay discover [--range RANGE] [--port N] [--timeout DURATION] [--json]`: finds PTP/IP cameras
/// on the local network (or the range given) and prints model, serial and address of each.
enum DiscoverCommand {
    static func run(_ arguments: [String], home: RelayHome) throws {
        let args = try Arguments(arguments, options: ["--range", "--port", "--timeout"], flags: ["--json"])
        if let extra = args.positionals.first { throw CommandFailure(.usage, "unexpected argument '\(extra)'") }
        let addresses: [String]
        if let range = try args.value("--range") {
            do { addresses = try AddressRange.parse(range) } catch { throw CommandFailure(.usage, error.description) }
        } else {
            addresses = NetworkInterfaces.defaultScanAddresses()
            guard !addresses.isEmpty else { throw CommandFailure(.source, CameraSourceError.noNetwork.description) }
        }
        let registry = try CameraRegistry(home: home)
        var options = DiscoveryOptions(addresses: addresses, guid: registry.clientGUID, friendlyName: CameraSource.friendlyName)
        if let port = try args.integer("--port", in: 1...65535) { options.port = UInt16(port) }
        if let timeout = try args.seconds("--timeout", minimum: 0.1, maximum: 60) { options.timeout = timeout }
        FileHandle.standardError.write(Data(
            "relay: looking for PTP/IP cameras on \(describe(addresses)), port \(options.port)\n".utf8))
        let cameras = CameraDiscovery.scan(options)
        if args.has("--json") {
            try JSONOutput.print(cameras)
        } else {
            for camera in cameras {
                if let refusal = camera.refusal {
                    print("\(camera.url)  a camera that refused relay: \(refusal)")
                } else {
                    print("\(camera.url)  \(camera.model)  serial \(camera.serialNumber)  (\(camera.manufacturer))")
                }
            }
        }
        guard !cameras.isEmpty else {
            throw CommandFailure(.failure, "no camera answered on \(describe(addresses)) (is it on, on this network, "
                + "with its Wi-Fi remote/PC connection enabled? --range names other addresses)")
        }
    }

    /// "192.168.1.1–192.168.1.254 (254 addresses)".
    private static func describe(_ addresses: [String]) -> String {
        guard let first = addresses.first, let last = addresses.last else { return "no addresses" }
        return addresses.count == 1 ? first : "\(first)–\(last) (\(addresses.count) addresses)"
    }
}
