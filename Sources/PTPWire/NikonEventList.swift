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

/// Nikon GetEvent (0x90C7) data: u16 count, then count × {u16 code, u32 parameter}; and
/// GetEventEx (0x941C) data: u16 count, 2 reserved bytes, then count × {u16 code, u16 parameter
/// count (at most 5), that many u32 parameters} (libgphoto2's `ptp_unpack_Nikon_EC_EX`).
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

    /// Decodes GetEventEx data. An event keeps its first parameter (0 when it has none); each
    /// parameter count is checked against the data before it is read.
    public init(decodingEx bytes: [UInt8]) throws(PTPWireError) {
        var reader = PTPDataReader(bytes)
        let count = Int(try reader.readU16())
        try reader.skip(2)
        guard count * 4 <= reader.remaining else {
            throw .truncated(needed: count * 4, available: reader.remaining)
        }
        var events: [NikonEvent] = []
        events.reserveCapacity(count)
        for _ in 0..<count {
            let code = PTPEventCode(try reader.readU16())
            let parameterCount = Int(try reader.readU16())
            guard parameterCount <= 5 else { throw .tooManyParameters(count: parameterCount, limit: 5) }
            var first: UInt32 = 0
            for index in 0..<parameterCount {
                let value = try reader.readU32()
                if index == 0 { first = value }
            }
            events.append(NikonEvent(code: code, parameter: first))
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

    /// Encodes as GetEventEx data, one parameter per event.
    public func encodedEx() -> [UInt8] {
        let kept = events.prefix(Int(UInt16.max))
        var writer = PTPDataWriter(capacity: 4 + kept.count * 8)
        writer.appendU16(UInt16(kept.count))
        writer.appendU16(0)
        for event in kept {
            writer.appendU16(event.code.rawValue)
            writer.appendU16(1)
            writer.appendU32(event.parameter)
        }
        return writer.bytes
    }

    /// Handles of newly added objects, in order.
    public var addedObjectHandles: [UInt32] {
        events.filter { $0.code == .objectAdded }.map(\.parameter)
    }
}
