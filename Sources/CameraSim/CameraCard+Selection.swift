import Foundation
import PhotoMetadata
import RelayCore

/// The photographer selecting on the body after the shot (issue 41): protecting a shot, or
/// rating it, changes what the card says of its files. Protection is ObjectInfo's
/// ProtectionStatus (0x0001 read-only, libgphoto2 `camlibs/ptp2/ptp.h`); a rating is written into
/// the JPEG on the card as XMP `xmp:Rating` (as Canon bodies do, darktable issue 13286), so the
/// file's size and bytes change. Each change is queued for the session to announce
/// (ObjectInfoChanged 0x4007 on standard and Nikon bodies).
extension CameraCard {
    /// `protect N` / `unprotect N`: the files of shot number N (the digits of their names);
    /// returns them (none when no such shot).
    public func setProtection(ofShot number: Int, _ protected: Bool) -> [SimObject] {
        change(shot: number, jpegOnly: false) { object, _ in
            guard object.isProtected != protected else { return false }
            object.isProtected = protected
            return true
        }
    }

    /// `rate N K`: shot N's JPEG carries `stars` (0 to 5, −1 rejected) as XMP `xmp:Rating`.
    public func rate(shot number: Int, stars: Int) -> [SimObject] {
        change(shot: number, jpegOnly: true) { object, _ in
            guard let bytes = try? object.content.read(offset: 0, count: object.size),
                let rated = Self.withRating(bytes, stars: stars)
            else { return false }
            object.content = .bytes(rated)
            return true
        }
    }

    /// `transfer N`: the body's transfer button on shot N's JPEG (Canon bodies then raise
    /// RequestObjectTransfer for a file on the card, libgphoto2 ptp.h 0xC186).
    public func requestTransfer(ofShot number: Int) -> [SimObject] {
        change(shot: number, jpegOnly: true) { object, contents in
            if !contents.transferRequests.contains(object.handle) { contents.transferRequests.append(object.handle) }
            return false
        }
    }

    /// Objects sent with the transfer button since the last call, in order.
    public func takeTransferRequests() -> [UInt32] {
        contents.withLockedValue { contents in
            defer { contents.transferRequests.removeAll() }
            return contents.transferRequests
        }
    }

    /// Objects whose info changed since the last call, each once, in the order they changed.
    public func takeChangedObjects() -> [UInt32] {
        contents.withLockedValue { contents in
            defer { contents.changed.removeAll() }
            return contents.changed
        }
    }

    /// Runs `body` on each file of shot `number`, under the card's lock (it may queue more in the
    /// card's contents); an object it changed (returned true for) is stored and queued to be
    /// announced. Returns the files, as changed.
    private func change(shot number: Int, jpegOnly: Bool, _ body: (inout SimObject, inout Contents) -> Bool) -> [SimObject] {
        contents.withLockedValue { (contents: inout Contents) -> [SimObject] in
            var touched: [SimObject] = []
            for handle in contents.objects.keys.sorted() {
                guard var object = contents.objects[handle], !object.isFolder, Self.shotNumber(object.name) == number,
                    !jpegOnly || object.format == Self.formatJPEG
                else { continue }
                if body(&object, &contents) {
                    contents.objects[handle] = object
                    if !contents.changed.contains(handle) { contents.changed.append(handle) }
                }
                touched.append(object)
            }
            return touched
        }
    }

    /// 3 for "IMG_0003.JPG", "DSC00003.JPG" or "DSC_0003.NEF".
    static func shotNumber(_ name: String) -> Int? {
        let stem = name.split(separator: ".").first.map(String.init) ?? name
        return Int(String(stem.reversed().prefix { $0.isNumber }.reversed()))
    }

    /// The JPEG with its XMP packet replaced by (or given) one that says `stars`, placed after
    /// the EXIF block as bodies place it; nil when the bytes are not a JPEG.
    static func withRating(_ jpeg: [UInt8], stars: Int) -> [UInt8]? {
        guard let segments = try? JPEGSegments(jpeg) else { return nil }
        let packet =
            #"<?xpacket begin="\#u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>"#
            + #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
            + #"<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\#(stars)"/>"#
            + #"</rdf:RDF></x:xmpmeta><?xpacket end="w"?>"#
        let xmp = JPEGSegments.segment(0xE1, body: Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8))
        var out: [UInt8] = [0xFF, 0xD8]
        var placed = false
        for segment in segments.segments where segment.kind != .xmp {
            out += jpeg[segment.range]
            if segment.kind == .exif && !placed {
                out += xmp
                placed = true
            }
        }
        if !placed { out.insert(contentsOf: xmp, at: 2) }
        return out + jpeg[segments.restStart...]
    }
}
