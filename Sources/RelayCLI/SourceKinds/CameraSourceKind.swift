import CommandLineOptions
import GPhoto2
import Intake
import PTPIP
import Tether

/// `--camera ADDRESS` and how a camera is read: PTP/IP (`ptpip://`, `auto`) and libgphoto2
/// (`usb`, `gphoto2:PORT`) cameras, told apart by their address.
enum CameraSourceKind: SourceKind {
    /// Also in `relay ftp-setup`, where FTP uploads of RAW files are taken too.
    static let includeRAW = Flag(
        "--include-raw",
        "cameras and FTP: take RAW files too (by default they stay on "
            + "the card or are answered and dropped, counted as skipped)")
    static let camera = RepeatedOption.texts(
        "--camera", "ADDRESS",
        "a PTP/IP camera: ptpip://HOST[:PORT] (port 15740 by default), or auto to look for one "
            + "on this machine's networks (--range to say where); through libgphoto2: usb (the first USB camera), usb:BUS,DEV, "
            + "gphoto2:PORT (any libgphoto2 port, e.g. gphoto2:ptpip:192.168.1.2)")
    static let includeExisting = Flag("--include-existing", "cameras: also take what was on the card before relay first connected to it")
    static let chunkSize = Option.size(
        "--chunk-size", "cameras: bytes per download request, what a dropped link costs",
        default: Int64(CameraSource.Options.defaultChunkSize), in: 4_000...64_000_000)
    static let range = Option.text("--range", "RANGE", "with --camera auto: where to look, e.g. 192.168.1.0/24 or 10.0.0.2-40")
    static let listEvery = Option.duration(
        "--list-every", "cameras: how often the card is listed to catch a photo whose event was lost",
        default: CameraSource.Options(address: .auto).crossCheckInterval, in: 1...3600)
    static let keepAlive = Option.duration(
        "--keep-alive",
        "cameras over Wi-Fi: after this long without an operation relay sends one (GetDeviceInfo), since bodies drop "
            + "a silent client; lower it for a body that drops sooner", default: CameraSource.Options(address: .auto).keepAliveSeconds,
        in: 0.5...60)

    static let options: [OptionSpec] = [
        camera.spec, includeRAW.spec, includeExisting.spec, chunkSize.spec, range.spec, listEvery.spec, keepAlive.spec,
    ]
    static var sourceOption: OptionSpec { camera.spec }
    /// The options only a camera uses, and those a libgphoto2 camera does not take.
    private static let onlyForCameras: [OptionSpec] = [includeExisting.spec, chunkSize.spec, range.spec, listEvery.spec, keepAlive.spec]
    private static let onlyForWiFiCameras: [OptionSpec] = [range.spec, listEvery.spec]

    static func settings(_ args: Arguments, environment: [String: String]) throws(CommandFailure) -> [any SourceSetting] {
        let cameras = try args.values(camera)
        guard !cameras.isEmpty else {
            // FTP takes --include-raw too.
            let stray = (args.gave(FTPArguments.listen.spec) ? [] : [includeRAW.spec]) + onlyForCameras
            if let option = stray.first(where: args.gave) {
                throw CommandFailure(.usage, "\(option.name) is for cameras: use it with --camera")
            }
            return []
        }
        let bytesPerRequest = try args.value(chunkSize).map { Int($0) }
        let listingInterval = try args.value(listEvery)
        let keepAliveSeconds = try args.value(keepAlive)
        var addresses: [String]?
        if let text = try args.value(range) {
            do throws(AddressRangeError) { addresses = try AddressRange.parse(text) } catch {
                throw CommandFailure(.usage, error.description)
            }
        }
        var settings: [any SourceSetting] = []
        for text in cameras {
            let gphoto2Port: GPhoto2Port?
            do { gphoto2Port = try GPhoto2Port.parse(text) } catch { throw CommandFailure(.usage, error.description) }
            if let gphoto2Port {
                var camera = GPhoto2Source.Options(port: gphoto2Port)
                camera.includeRAW = args.has(includeRAW)
                camera.includeExisting = args.has(includeExisting)
                if let bytesPerRequest { camera.chunkSize = bytesPerRequest }
                settings.append(camera)
                continue
            }
            var camera: CameraSource.Options
            do { camera = CameraSource.Options(address: try CameraAddress.parse(text)) } catch {
                throw CommandFailure(.usage, error.description)
            }
            camera.includeRAW = args.has(includeRAW)
            camera.includeExisting = args.has(includeExisting)
            if let bytesPerRequest { camera.chunkSize = bytesPerRequest }
            if let listingInterval { camera.crossCheckInterval = listingInterval }
            if let keepAliveSeconds { camera.keepAliveSeconds = keepAliveSeconds }
            camera.discoveryAddresses = addresses
            settings.append(camera)
        }
        if !settings.contains(where: { $0 is CameraSource.Options }), let option = onlyForWiFiCameras.first(where: args.gave) {
            throw CommandFailure(
                .usage, "\(option.name) is for Wi-Fi cameras (ptpip:// or auto): libgphoto2 cameras take no \(option.name)")
        }
        return settings
    }
}
