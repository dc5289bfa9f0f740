import Foundation
import RelayCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Incoming photos whose file another part of relay writes and keeps (an FTP upload's partial
/// file): adopted, renamed or let go without the spool removing the file.
extension Spool {
    /// Takes a file that another part of relay writes and keeps (an FTP upload's partial file,
    /// kept for a resume) as an incoming photo: it can be offered for upload while it grows, and
    /// `commit` moves it into the spool. Until then the file stays the writer's: `withdraw`
    /// and `closeFile` leave it where it is.
    public func adopt(_ identity: PhotoIdentity, url: URL, descriptor: Int32) -> IncomingPhoto {
        var info = stat()
        let size = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
        let incoming = IncomingPhoto(identity: identity, url: url, descriptor: descriptor, byteCount: size)
        incoming.spool = self
        return incoming
    }

    /// Lets go of an adopted incoming photo that will not be committed (its upload was cut, or
    /// it repeats a photo received before): an upload sending it is withdrawn, its upload name
    /// freed, its descriptor closed; the file stays where its writer keeps it.
    public func letGo(_ incoming: IncomingPhoto) {
        withdraw(incoming)
        apply(.forgetIncoming(id: incoming.identity.stableID))
        incoming.reservation = nil
        incoming.closeFile()
    }

    /// Gives an incoming photo another file name (a name clash found at its end). An upload
    /// that started under the old name is withdrawn: the photo is sent from the spool.
    public func renameIncoming(_ incoming: IncomingPhoto, toFileName fileName: String) {
        withdraw(incoming)
        incoming.reservation = nil
        incoming.identity.fileName = fileName
    }

    /// Records what names an incoming photo's content, once its source knows (see ``PhotoIdentity/contentKey``).
    public func setContentKey(_ key: String, of incoming: IncomingPhoto) {
        incoming.identity.contentKey = key
    }

    /// Records the sender's note on an incoming photo, known only once its request ended.
    public func setNote(_ note: String, of incoming: IncomingPhoto) {
        incoming.identity.note = note
    }
}
