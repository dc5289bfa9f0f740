/// One request header, name and value already resolved (no `${VAR}` left): the uploader sends
/// what it is given and only refuses what would break the request framing.
public struct HTTPHeader: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
