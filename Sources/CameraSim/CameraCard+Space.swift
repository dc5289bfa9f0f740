extension CameraCard {
    /// The card's free space now, as StorageInfo reports it: bytes, and the shots that still fit
    /// (the body's estimate, from the size of one shot). Photos kept on the card use it up;
    /// photos deleted give it back.
    public var freeSpace: (bytes: UInt64, shots: UInt32) {
        let resources = options.resources
        let freeAtStart = resources.cardFreeBytes ?? max(0, SimResourceOptions.defaultCardCapacity - usedAtStart)
        let free = max(0, usedAtStart + freeAtStart - usedBytes)
        let shotSize: Int
        if let shots = resources.cardFreeShots, shots > 0 {
            shotSize = max(1, freeAtStart / shots)
        } else {
            shotSize = max(1, options.photoSize + (options.raw ? options.rawSize : 0))
        }
        let shots = resources.cardFreeShots == 0 ? 0 : free / shotSize
        return (UInt64(free), UInt32(min(shots, Int(UInt32.max - 1))))
    }
}
