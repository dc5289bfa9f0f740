/// How `--status` serves the page: where, and the token it asks for.
public struct StatusOptions: Sendable, Equatable {
    public var address: StatusAddress
    /// Required on every path but `/healthz` when set.
    public var token: String?

    /// The environment variable the token is read from: a command line shows in `ps`.
    public static let tokenVariable = "RELAY_STATUS_TOKEN"

    public init(address: StatusAddress, token: String?) {
        self.address = address
        self.token = token
    }

    /// From `--status`'s value and the environment (an empty token counts as none).
    public init(argument: String, environment: [String: String]) throws(StatusAddressError) {
        address = try StatusAddress.parse(argument)
        token = environment[Self.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
    }
}
