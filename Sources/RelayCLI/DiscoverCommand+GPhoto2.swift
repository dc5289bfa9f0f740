import Foundation
import GPhoto2

/// The cameras libgphoto2 detects (on USB) in `relay discover`, beside the Wi-Fi ones. Detecting
/// costs a camera nothing: libgphoto2 reads the USB descriptors and opens no session.
extension DiscoverCommand {
    /// The detected cameras; a machine where libgphoto2 cannot look (no USB access) has none,
    /// which is said on stderr.
    static func gphoto2Cameras(log: (String) -> Void) -> [GPhoto2DetectedCamera] {
        do {
            return try GPhoto2Camera.detect()
        } catch {
            log("relay: libgphoto2 could not look for USB cameras: \(error)")
            return []
        }
    }

    /// The address `relay run --camera` takes for a detected camera.
    static func cameraAddress(_ camera: GPhoto2DetectedCamera) -> String {
        if let port = try? GPhoto2Port.parse(camera.port), port != .firstUSB { return port.description }
        return GPhoto2Port.path(camera.port).description
    }

    static func line(_ camera: GPhoto2DetectedCamera) -> String {
        "\(cameraAddress(camera))  \(camera.model)  (libgphoto2 detected it; relay run --camera \(cameraAddress(camera)))"
    }

    /// A detected camera in `--json`: `url` as `relay run --camera` takes it, libgphoto2's
    /// model and port, and `foundBy` "libgphoto2".
    struct GPhoto2Listed: Encodable {
        let url: String
        let model: String
        let gphoto2Port: String
        let foundBy = "libgphoto2"

        init(_ camera: GPhoto2DetectedCamera) {
            url = DiscoverCommand.cameraAddress(camera)
            model = camera.model
            gphoto2Port = camera.port
        }
    }
}
