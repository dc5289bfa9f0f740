/// What a photo's own file says of it, read once as it is committed to the spool and kept in its
/// sidecar: the photographer's rating (read only when a destination sends selected photos) and
/// the camera that made it, which a desk shows beside who sent it.
public struct HeaderFacts: Sendable, Equatable {
    /// 0 to 5; -1 rejected; nil when the file carries none (or nobody asked).
    public var rating: Int?
    /// The body's model and serial as its EXIF says ("Canon EOS R5 #012345"), nil when it says none.
    public var camera: String?
    /// Who shot it when its source does not say (a login, an inbox object's metadata): the run's
    /// `--photographer`, else the owner the camera writes (EXIF Artist).
    public var photographer: String?

    public init(rating: Int? = nil, camera: String? = nil, photographer: String? = nil) {
        self.rating = rating
        self.camera = camera
        self.photographer = photographer
    }
}
