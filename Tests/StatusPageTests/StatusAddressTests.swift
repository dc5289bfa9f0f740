import Testing

@testable import StatusPage

@Suite struct StatusAddressTests {
    @Test func aPortAloneIsLoopback() throws {
        #expect(try StatusAddress.parse("8080") == StatusAddress(host: "127.0.0.1", family: .ipv4, port: 8080))
    }

    @Test func addressesAndPorts() throws {
        #expect(try StatusAddress.parse("0.0.0.0:8080") == StatusAddress(host: "0.0.0.0", family: .ipv4, port: 8080))
        #expect(try StatusAddress.parse("127.0.0.1:9") == StatusAddress(host: "127.0.0.1", family: .ipv4, port: 9))
        #expect(try StatusAddress.parse("[::1]:8080") == StatusAddress(host: "::1", family: .ipv6, port: 8080))
        #expect(try StatusAddress.parse("[::]:0") == StatusAddress(host: "::", family: .ipv6, port: 0))
        #expect(try StatusAddress.parse("localhost:8080") == StatusAddress(host: "127.0.0.1", family: .ipv4, port: 8080))
        #expect(try StatusAddress.parse("[::1]:8080").description == "[::1]:8080")
    }

    @Test func refusals() {
        #expect(throws: StatusAddressError.empty) { try StatusAddress.parse("") }
        #expect(throws: StatusAddressError.badPort("65536")) { try StatusAddress.parse("65536") }
        #expect(throws: StatusAddressError.badPort("http")) { try StatusAddress.parse("http") }
        #expect(throws: StatusAddressError.badPort("0.0.0.0:")) { try StatusAddress.parse("0.0.0.0:") }
        #expect(throws: StatusAddressError.badPort("1.2.3.4:-1")) { try StatusAddress.parse("1.2.3.4:-1") }
        #expect(throws: StatusAddressError.bareIPv6("::1:8080")) { try StatusAddress.parse("::1:8080") }
        #expect(throws: StatusAddressError.unclosedBracket("[::1:8080")) { try StatusAddress.parse("[::1:8080") }
        #expect(throws: StatusAddressError.missingPort("[::1]")) { try StatusAddress.parse("[::1]") }
        #expect(throws: StatusAddressError.notAnAddress("gallery.example")) { try StatusAddress.parse("gallery.example:8080") }
        #expect(throws: StatusAddressError.notAnAddress("300.1.1.1")) { try StatusAddress.parse("300.1.1.1:8080") }
    }

    @Test func refusalsSayWhatToGive() {
        let message = StatusAddressError.badPort("http").description
        #expect(message.contains("0.0.0.0:8080"))
        #expect(message.contains("65535"))
    }

    @Test func theTokenComesFromTheEnvironment() throws {
        let options = try StatusOptions(argument: "8080", environment: ["RELAY_STATUS_TOKEN": "s3cret"])
        #expect(options.token == "s3cret")
        #expect(try StatusOptions(argument: "8080", environment: ["RELAY_STATUS_TOKEN": ""]).token == nil)
        #expect(try StatusOptions(argument: "8080", environment: [:]).token == nil)
    }

    /// A page beyond loopback is never open to the venue's network: without RELAY_STATUS_TOKEN
    /// relay makes a token up for the run; on loopback none is needed.
    @Test func aPageOnTheNetworkGetsATokenOfItsOwn() throws {
        let open = try StatusOptions(argument: "0.0.0.0:8080", environment: [:])
        let token = try #require(open.token)
        #expect(open.tokenIsMadeUp)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        #expect(try StatusOptions(argument: "0.0.0.0:8080", environment: [:]).token != token, "each run has its own")
        #expect(try StatusOptions(argument: "[::]:8080", environment: [:]).tokenIsMadeUp)
        #expect(try StatusOptions(argument: "192.168.1.5:8080", environment: [:]).tokenIsMadeUp)
        let given = try StatusOptions(argument: "0.0.0.0:8080", environment: ["RELAY_STATUS_TOKEN": "s3cret"])
        #expect(given.token == "s3cret" && !given.tokenIsMadeUp)
        for loopback in ["8080", "127.0.0.1:8080", "localhost:8080", "[::1]:8080"] {
            #expect(try StatusOptions(argument: loopback, environment: [:]).token == nil, "\(loopback)")
        }
    }
}
