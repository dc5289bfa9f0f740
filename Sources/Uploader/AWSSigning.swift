/// What libcurl needs to sign a request with AWS Signature Version 4 (`CURLOPT_AWS_SIGV4`).
/// The keys come from the environment when relay starts and live only in memory.
public struct AWSSigning: Sendable, Equatable {
    public var accessKey: String
    public var secretKey: String
    /// Sent as `x-amz-security-token` with temporary credentials.
    public var sessionToken: String?
    public var region: String
    public var service: String

    public init(accessKey: String, secretKey: String, sessionToken: String? = nil, region: String, service: String = "s3") {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }

    /// libcurl's provider string: `aws:amz:REGION:SERVICE`.
    public var curlProvider: String { "aws:amz:\(region):\(service)" }
}
