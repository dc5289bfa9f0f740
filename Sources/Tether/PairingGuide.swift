/// What a photographer presses on the body so that it accepts relay, per vendor.
///
/// Canon, Nikon and Sony bodies accept only a client id (GUID) they were paired with and answer
/// any other with InitFail (a Nikon Z: InitFail reason 1 until paired, gphoto2 issue 384; a Sony
/// in "Send to Computer" accepts the GUID of the PC software it was paired with, which gphoto2
/// users set as `ptp2_ip guid`, gphoto2 issue 300). The menu names follow the vendors' manuals
/// and differ a little between bodies; none of these steps has been tried on hardware here.
public enum PairingGuide {
    /// The steps for the three vendors, as lines to print (relay does not know the vendor before
    /// the camera lets it in).
    public static func steps(camera: CameraAddress) -> [String] {
        [
            "Canon EOS: MENU > Wi-Fi/Bluetooth connection (older bodies: Wi-Fi function) > Remote control (EOS Utility);",
            "  join this computer's network, and when the camera asks to pair, confirm relay's name on the camera.",
            "Nikon: Network menu > Connect to computer (Z bodies; DSLRs with a WT transmitter: PC mode) > Network settings >",
            "  Create profile; when the camera asks to pair, confirm relay on the camera.",
            "Sony: MENU > Network > PC Remote Function > PC Remote: On (or Send to Computer), connection method Wi-Fi;",
            "  confirm the pairing on the camera when relay connects.",
            "A body paired once with the vendor's software (EOS Utility, Nikon Wireless Transmitter Utility, Imaging Edge",
            "  or PlayMemories Home) accepts that software's id: relay pair --camera \(camera) --guid ITS-GUID --name ITS-NAME.",
        ]
    }
}
