/// One event from Nikon GetEvent (0x90C7): a PTP event code and its single parameter.
public struct NikonEvent: Equatable, Sendable {
    public var code: PTPEventCode
    /// For ObjectAdded, the new object's handle.
    public var parameter: UInt32

    public init(code: PTPEventCode, parameter: UInt32) {
        self.code = code
        self.parameter = parameter
    }
}

/// Nikon GetEvent (0x90C7) data: u16 count, then count × {u16 code, u32 parameter}.
public struct NikonEventList: Equatable, Sendable {
    public var events: [NikonEvent]

    public init(events: [NikonEvent]) {
        self.events = events
    }

    /// Decodes the list; the count is checked against the data length before allocating, and bytes
    /// after the last event are ignored.
    public init(decoding bytes: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(bytes)
        let count = Int(try reader.readU16())
        guard count * 6 <= reader.remaining else {
            throw .truncated(needed: count * 6, available: reader.remaining)
        }
        var events: [NikonEvent] = []
        events.reserveCapacity(count)
        for _ in 0..<count {
            let code = PTPEventCode(try reader.readU16())
            events.append(NikonEvent(code: code, parameter: try reader.readU32()))
        }
        self.events = events
    }

    /// Encodes at most 65535 events (the count is a u16).
    public func encoded() -> [UInt8] {
        let kept = events.prefix(Int(UInt16.max))
        var writer = PTPDataWriter(capacity: 2 + kept.count * 6)
        writer.appendU16(UInt16(kept.count))
        for event in kept {
            writer.appendU16(event.code.rawValue)
            writer.appendU32(event.parameter)
        }
        return writer.bytes
    }

    /// Handles of newly added objects, in order.
    public var addedObjectHandles: [UInt32] {
        events.filter { $0.code == .objectAdded }.map(\.parameter)
    }
}
