/// How `--status` serves the page: where, and the token it asks for.
public struct StatusOptions: Sendable, Equatable {
    public var address: StatusAddress
    /// Required on every path but `/healthz` when set.
    public var token: String?
    /// True when relay made `token` up: the page listens beyond this machine (the venue's
    /// Wi-Fi, guests included) and `RELAY_STATUS_TOKEN` is not set. It lasts for the run.
    public private(set) var tokenIsMadeUp = false
    /// The editor's token (`/review`): `RELAY_EDITOR_TOKEN`, else made up for the run (the page
    /// is announced only when a destination of the run holds photos for review).
    public var editorToken: String?
    /// True when relay made `editorToken` up.
    public private(set) var editorTokenIsMadeUp = false

    /// The environment variable the editor's token is read from.
    public static let editorTokenVariable = "RELAY_EDITOR_TOKEN"
    /// The venue wall's token (`/wall`): `RELAY_WALL_TOKEN`, else made up for the run.
    public var wallToken: String?
    /// The guests' gallery link the wall shows as a QR code.
    public var guestLink: String?
    /// How the wall shows its photos: credit, logo and pace.
    public var wall = WallOptions()
    /// The environment variable the wall's token is read from.
    public static let wallTokenVariable = "RELAY_WALL_TOKEN"

    /// The environment variable the token is read from: a command line shows in `ps`.
    public static let tokenVariable = "RELAY_STATUS_TOKEN"

    public init(address: StatusAddress, token: String?) {
        self.address = address
        self.token = token
    }

    /// From `--status`'s value and the environment (an empty token counts as none). A page
    /// beyond loopback without a token gets one made up, never served open to the network.
    public init(argument: String, environment: [String: String]) throws(StatusAddressError) {
        address = try StatusAddress.parse(argument)
        token = environment[Self.tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        if token == nil && !address.isLoopback {
            token = Self.madeUpToken()
            tokenIsMadeUp = true
        }
    }

    /// Opens the editor's page, with `RELAY_EDITOR_TOKEN` or a token made up for the run (it
    /// must differ from the status token: viewers of the status page cannot decide).
    public mutating func openEditorPage(environment: [String: String]) {
        editorToken = environment[Self.editorTokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        if editorToken == nil || editorToken == token {
            editorToken = Self.madeUpToken()
            editorTokenIsMadeUp = true
        }
    }

    /// Opens the venue wall, with `RELAY_WALL_TOKEN` or a token made up for the run (never one
    /// of the other pages': a guest who scans the wall sees the wall and nothing else).
    public mutating func openWall(environment: [String: String], guestLink: String?) {
        wallToken = environment[Self.wallTokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        if wallToken == nil || wallToken == token || wallToken == editorToken { wallToken = Self.madeUpToken() }
        self.guestLink = guestLink
    }

    /// 128 random bits as 32 hex digits (the system's cryptographic random source).
    static func madeUpToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
