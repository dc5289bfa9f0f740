import PTPWire

/// Which operations a body answers: those its DeviceInfo lists, and what the session learned
/// about the others by asking. Bodies answer operations they do not list: a Nikon Z in "connect
/// to computer" mode lists nine operations (libgphoto2 issue 1135) yet answers
/// GetPartialObjectEx (libgphoto2 issue 976). So a dialect that would like an unlisted operation
/// asks it once: any answer but OperationNotSupported means the body knows it for the rest of
/// the session, OperationNotSupported means it does not, and the dialect falls back.
///
/// Asking is a dialect's choice per operation (``CameraSession/mayTry(_:)``), never a blanket
/// rule: some bodies hang on codes they do not know (libgphoto2 issue 85, Sony's 0x9280 on USB).
struct OperationSupport: Sendable, Equatable {
    /// What DeviceInfo lists.
    var listed: Set<UInt16>
    /// Unlisted operations asked once: true when the body answered anything but
    /// OperationNotSupported.
    private(set) var learned: [UInt16: Bool] = [:]

    init(listed: [UInt16]) {
        self.listed = Set(listed)
    }

    /// Whether the body is known to answer `code`: listed, or answered when asked.
    func supports(_ code: PTPOperationCode) -> Bool {
        listed.contains(code.rawValue) || learned[code.rawValue] == true
    }

    /// Whether `code` is worth sending: known to work, or not asked yet.
    func mayTry(_ code: PTPOperationCode) -> Bool {
        supports(code) || learned[code.rawValue] == nil
    }

    /// Records the body's answer to an unlisted operation.
    mutating func record(_ code: PTPOperationCode, answered response: PTPResponseCode) {
        guard !listed.contains(code.rawValue) else { return }
        learned[code.rawValue] = response != .operationNotSupported
    }

    /// An unlisted operation the body knows but that does not work in this session (it answered
    /// an error, not OperationNotSupported): not asked again.
    mutating func giveUp(_ code: PTPOperationCode) {
        guard !listed.contains(code.rawValue) else { return }
        learned[code.rawValue] = false
    }

    /// Operations a body names another way than in DeviceInfo (Nikon's GetVendorCodes): PTP
    /// codes carry their kind in bits 12–14 (1 operation, 4 event, 5 property; bit 15 vendor),
    /// as libgphoto2 sorts Sony's extra codes (`ptp_sony_get_vendorpropcodes`). Returns the
    /// operations among `codes`.
    @discardableResult
    mutating func learnNamed(_ codes: [UInt32]) -> [UInt16] {
        let operations = codes.compactMap { code -> UInt16? in
            guard code <= UInt32(UInt16.max), code & 0x7000 == 0x1000 else { return nil }
            return UInt16(code)
        }
        for operation in operations where !listed.contains(operation) { learned[operation] = true }
        return operations
    }

    /// The unlisted operations the body answered, for messages ("0x9431 0x90C7").
    var answeredUnlisted: [PTPOperationCode] {
        learned.filter(\.value).keys.sorted().map { PTPOperationCode($0) }
    }
}
