/// One text part of a multipart body (for example `note`), sent before the file part.
public struct FormField: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
