import Foundation
import Intake
import RelayCore
import RunEvents
import Spool
import Uploader

/// `relay run --inbox NOTE`: an S3 bucket's prefix as a source, shared with other desks.
public struct S3InboxOptions: Sendable {
    public static let defaultEvery: TimeInterval = 1

    /// The inbox's saved config (`s3://BUCKET/PREFIX/`, endpoint, region, addressing).
    public var config: RequestConfig
    /// Where the config's keys are read from.
    public var environment: [String: String]
    /// `--inbox-every`: how often the prefix is listed.
    public var every: TimeInterval = Self.defaultEvery
    /// `--inbox-claim-timeout`: another desk's unrenewed claim is taken over after this long.
    public var claimTimeout: TimeInterval = ClaimRules.defaultTimeout
    /// `--inbox-delete`: a photo is deleted from the inbox once every destination of the desk
    /// has it (one that a person rejected, or a destination refused, stays).
    public var deleteDelivered = false
    /// `--inbox-photographer`: who shot a photo, read from its key below the prefix.
    public var photographer: InboxPhotographer?
    /// The wait after the store could not be reached, growing with each failure in a row
    /// (`--retry-base`, `--retry-cap`, as for a destination).
    public var backoff = Backoff()

    public init(config: RequestConfig, environment: [String: String]) {
        self.config = config
        self.environment = environment
    }
}

extension S3InboxOptions: SourceSetting {
    public var label: String { "inbox \(config.url)" }

    public func makeSource(spool: Spool, home: RelayHome, report: SourceReporter) throws -> any PhotoSource {
        try S3InboxSource(options: self, spool: spool, home: home, report: report)
    }
}
