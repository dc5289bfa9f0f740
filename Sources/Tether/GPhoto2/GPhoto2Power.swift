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

    /// The camera announced a new photo: the card's free space is read again soon.
    mutating func photoTaken() {
        photoSinceCardRead = true
    }

    /// Reads what is due and returns what changed. A camera that is gone throws; a busy one is
    /// asked again at the next interval; any other refusal, or no such reading, means the driver
    /// cannot tell, and that reading is not asked again.
    mutating func update(_ camera: GPhoto2Camera, now: Double) throws(GPhoto2Error) -> [PowerChange] {
        let periodic = now >= nextRead
        let cardDue = periodic || (photoSinceCardRead && now - lastCardRead >= CameraPower.cardSpacing)
        if periodic { nextRead = now + CameraPower.interval }
        var changes: [PowerChange] = []
        if periodic, !batteryMissing {
            switch try answer({ () throws(GPhoto2Error) in try camera.batteryText() }) {
            case .value(let text):
                // A level the driver cannot name this time ("Unknown value") is skipped.
                if let percent = GPhoto2BatteryText.percent(text), percent != battery {
                    battery = percent
                    changes.append(.battery(percent: percent))
                }
            case .busy: break
            case .none: batteryMissing = true
            }
        }
        if cardDue, !cardMissing {
            lastCardRead = now
            photoSinceCardRead = false
            switch try answer({ () throws(GPhoto2Error) in try camera.storageSpace() }) {
            case .value(let space):
                let reading = PowerChange.card(freeBytes: space.freeBytes, freeShots: space.freeImages)
                if reading != card {
                    card = reading
                    changes.append(reading)
                }
            case .busy: break
            case .none: cardMissing = true
            }
        }
        return changes
    }

    private enum Reading<Value> {
        case value(Value)
        case busy
        /// The driver has no such reading, or refused it.
        case none
    }

    /// What the driver answered; a lost camera throws.
    private func answer<Value>(_ read: () throws(GPhoto2Error) -> Value?) throws(GPhoto2Error) -> Reading<Value> {
        do {
            return try read().map(Reading.value) ?? .none
        } catch {
            switch error.kind {
            case .connectionLost, .noCamera: throw error
            case .busy: return .busy
            default: return .none
            }
        }
    }
}
