import SSDPWire

extension SimProfile {
    /// The SSDP service type a body of this family announces (`relay camera-sim --ssdp`), nil
    /// for one that does not announce itself. The one place a new profile says whether and how
    /// it announces: Canon EOS in EOS Utility mode announces `ICPO-WFTEOSSystemService`, a Sony
    /// `MtpNullService`; Nikon bodies are found by their PTP/IP port alone.
    public var ssdpServiceType: CameraServiceType? {
        switch self {
        case .canonEOS, .canonR5m2, .canonEOSM: return .canonEOSUtility
        case .sony: return .sonyMTP
        case .nikon, .nikonZ, .nikonZStrict, .generic: return nil
        }
    }
}
