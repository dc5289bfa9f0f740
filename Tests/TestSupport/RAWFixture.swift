import Foundation

/// RAW files for receivers' tests, built by hand so that their structure is known.
public enum RAWFixture {
    /// A TIFF-structured RAW (as NEF, ARW, DNG are): IFD0 with one strip of `body` bytes at its end.
    public static func tiff(body: Int, seed: UInt8) -> Data {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, Array.init) }
        var file: [UInt8] = [0x49, 0x49] + u16(42) + u32(8) + u16(2)
        file += u16(0x0111) + u16(4) + u32(1) + u32(38)
        file += u16(0x0117) + u16(4) + u32(1) + u32(body)
        file += u32(0)
        return Data(file + (0..<body).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }
}
