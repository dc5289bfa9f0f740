import GPhoto2

/// Reads a libgphoto2 camera's battery level (the driver's `batterylevel` widget) and free card
/// space (`gp_camera_get_storageinfo`): once after connecting, then every `CameraPower.interval`,
/// and the card again after photos (libgphoto2 keeps a property it read for 2 s, library.c
/// "cachetime", which the interval is well beyond). Only changes are handed out; a camera whose driver reports
/// neither is asked once and then left alone. Runs on the session's thread; the calls go to the
/// camera's owner thread like every other.
struct GPhoto2Power {
    private var batteryMissing = false
    private var cardMissing = false
    private var nextRead = -Double.infinity
    private var lastCardRead = -Double.infinity
    private var photoSinceCardRead = false
    private(set) var battery: Int?
    private(set) var card: PowerChange?

    /// A photo came off the card: its free space is read again soon.
    mutating func photoTaken() {
        photoSinceCardRead = true
    }

    /// Reads what is due and returns what changed. A camera that is gone throws; any other
    /// refusal means the driver cannot tell, and that reading is not asked again.
    mutating func update(_ camera: GPhoto2Camera, now: Double) throws(GPhoto2Error) -> [PowerChange] {
        let periodic = now >= nextRead
        let cardDue = periodic || (photoSinceCardRead && now - lastCardRead >= CameraPower.cardSpacing)
        if periodic { nextRead = now + CameraPower.interval }
        var changes: [PowerChange] = []
        if periodic, !batteryMissing {
            let percent = try answer { () throws(GPhoto2Error) in try camera.batteryText() }.flatMap(GPhoto2BatteryText.percent)
            if percent == nil { batteryMissing = battery == nil }
            if let percent, percent != battery {
                battery = percent
                changes.append(.battery(percent: percent))
            }
        }
        if cardDue, !cardMissing {
            lastCardRead = now
            photoSinceCardRead = false
            if let space = try answer({ () throws(GPhoto2Error) in try camera.storageSpace() }) {
                let reading = PowerChange.card(freeBytes: space.freeBytes, freeShots: space.freeImages)
                if reading != card {
                    card = reading
                    changes.append(reading)
                }
            } else {
                cardMissing = card == nil
            }
        }
        return changes
    }

    /// The reading, or nil when the driver refused it for any reason but a lost camera.
    private func answer<T>(_ read: () throws(GPhoto2Error) -> T?) throws(GPhoto2Error) -> T? {
        do {
            return try read()
        } catch {
            switch error.kind {
            case .connectionLost, .noCamera: throw error
            default: return nil
            }
        }
    }
}
