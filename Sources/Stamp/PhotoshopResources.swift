import COpenSSL
import Foundation
import PhotoMetadata

/// A JPEG's APP13: "Photoshop 3.0\0", then image resource blocks (`8BIM`, a 16-bit id, a
/// Pascal name padded to even, a 32-bit size, the data padded to even; exiftool Photoshop.pm).
/// IPTC IIM is resource 0x0404, and 0x0425 holds the MD5 of its data (without the pad byte),
/// by which Metadata Working Group readers know the IIM and the XMP were written together.
enum PhotoshopResources {
    static let signature = Array("Photoshop 3.0\0".utf8)
    static let iptc: UInt16 = 0x0404
    static let iptcDigest: UInt16 = 0x0425

    /// An APP13 body with `iim` as its IPTC data and a fresh digest, first (PHP's `iptcparse`
    /// reads the first IIM it finds), and the other resources of `existing` (the body of the
    /// photo's own APP13, when it has one) after them.
    /// Without `digest` (the XMP could not be stamped), no 0x0425 is written: a reader then
    /// takes the IIM, not the camera's stale XMP (exiftool MWG.pm). The camera's other resources
    /// are left out when they would make the segment too big for one APP13; nil when even the
    /// stamp's alone is.
    static func app13(iim: [UInt8], keeping existing: ArraySlice<UInt8>?, digest: Bool = true) -> [UInt8]? {
        var body = signature + block(iptc, iim) + (digest ? block(iptcDigest, md5(iim)) : [])
        guard body.count <= JPEGSegments.maximumBody else { return nil }
        for resource in existing.map(blocks) ?? [] where resource.id != iptc && resource.id != iptcDigest {
            guard body.count + resource.block.count <= JPEGSegments.maximumBody else { break }
            body += resource.block
        }
        return body
    }

    /// One resource block.
    static func block(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
        var out = Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0]
        let size = UInt32(data.count)
        out += [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)] + data
        if data.count % 2 == 1 { out.append(0) }
        return out
    }

    /// The resource blocks of an APP13 body (after the signature), each whole; what cannot be
    /// read is left out.
    static func blocks(_ body: ArraySlice<UInt8>) -> [(id: UInt16, block: ArraySlice<UInt8>)] {
        guard body.starts(with: signature) else { return [] }
        var found: [(UInt16, ArraySlice<UInt8>)] = []
        var at = body.startIndex + signature.count
        while at + 12 <= body.endIndex, body[at..<at + 4].elementsEqual("8BIM".utf8) {
            let start = at
            let id = UInt16(body[at + 4]) << 8 | UInt16(body[at + 5])
            var nameLength = Int(body[at + 6]) + 1
            if nameLength % 2 == 1 { nameLength += 1 }
            at += 6 + nameLength
            guard at + 4 <= body.endIndex else { break }
            let size = Int(body[at]) << 24 | Int(body[at + 1]) << 16 | Int(body[at + 2]) << 8 | Int(body[at + 3])
            at += 4 + size + size % 2
            guard at <= body.endIndex else { break }
            found.append((id, body[start..<at]))
        }
        return found
    }

    /// The IPTC data of an APP13 body, nil when it has none.
    static func iim(in body: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let block = blocks(body).first(where: { $0.id == iptc })?.block else { return nil }
        var nameLength = Int(block[block.startIndex + 6]) + 1
        if nameLength % 2 == 1 { nameLength += 1 }
        let sizeAt = block.startIndex + 6 + nameLength
        let size = Int(block[sizeAt]) << 24 | Int(block[sizeAt + 1]) << 16 | Int(block[sizeAt + 2]) << 8 | Int(block[sizeAt + 3])
        return block[(sizeAt + 4)..<(sizeAt + 4 + size)]
    }

    static func md5(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_md5(), nil) }
        return ok == 1 ? Array(digest.prefix(Int(length))) : []
    }
}
