import CommandLineOptions
import Intake
import RelayCore
import S3Inbox
import Uploader

/// `relay run --inbox NOTE`: a shared S3 bucket as the desk's inbox (issue 52).
enum S3InboxSourceKind: SourceKind {
    static let inbox = Option.text(
        "--inbox", "ID|NOTE",
        "take photos from the S3 bucket of this saved s3://BUCKET/PREFIX/ config (its endpoint, keys, region and addressing), "
            + "shared with other desks: each photo is taken by one desk only")
    static let every = Option.duration(
        "--inbox-every", "S3 inbox: how often the prefix is listed", default: S3InboxOptions.defaultEvery, in: 0.05...3600)
    static let claimTimeout = Option.duration(
        "--inbox-claim-timeout", "S3 inbox: another desk's claim not renewed for this long is taken over (a desk that died)",
        default: ClaimRules.defaultTimeout, in: 1...86_400)
    static let photographer = Option.text(
        "--inbox-photographer", "TEMPLATE",
        "S3 inbox: who shot a photo, read from its key below the prefix with a destination's template words "
            + "('{photographer}/{name}' for the keys of a field relay's s3://BUCKET/PREFIX/{photographer}/{name}); "
            + "a key it does not match is credited from its x-amz-meta-photographer")

    static let delete = Flag(
        "--inbox-delete",
        "S3 inbox: delete a photo from the bucket once every destination of this desk has it (one rejected or refused stays)")

    static let options: [OptionSpec] = [inbox.spec, every.spec, claimTimeout.spec, photographer.spec, delete.spec]
    static var sourceOption: OptionSpec { inbox.spec }

    /// The S3 INBOX part of `relay run --help`.
    static let section = CommandSpec.Section(
        title: "S3 INBOX (relay run --inbox; a desk taking photos that field relays put in a bucket)", options: options,
        notes: [
            "Each photo is claimed with a conditional write before it is taken (a store without them is refused at start), "
                + "verified (its x-amz-checksum-sha256, else its ETag when an MD5; its JPEG structure), spooled with its "
                + "photographer, and its claim marked done; with --inbox-delete it leaves the bucket once every destination "
                + "of this desk has it.",
            "The photographer: with --inbox-photographer, the key's (where the key's path-safe name, Ana_L_pez, is the one "
                + "its x-amz-meta-photographer was made from, that name as written: Ana López); else, or for a key the "
                + "template does not match, its x-amz-meta-photographer.",
        ])

    static func settings(_ args: Arguments, environment: [String: String]) throws(CommandFailure) -> [any SourceSetting] {
        guard let query = try args.value(inbox) else {
            if let option = [every.spec, claimTimeout.spec, photographer.spec, delete.spec].first(where: args.gave) {
                throw CommandFailure(.usage, "\(option.name) is for the S3 inbox: use it with --inbox NOTE")
            }
            return []
        }
        let config: RequestConfig
        do {
            config = try ConfigStore(home: RelayHome.resolve(environment: environment)).resolve(query)
        } catch {
            throw CommandFailure(.usage, "--inbox \(query): \(error)")
        }
        guard config.url.lowercased().hasPrefix("s3://") else {
            throw CommandFailure(
                .usage,
                "--inbox \(query) is not an S3 config (\(config.url)): give the note or id of an s3://BUCKET/PREFIX/ config "
                    + "(relay config add --url s3://BUCKET/PREFIX/ --option endpoint=…)")
        }
        var options = S3InboxOptions(config: config, environment: environment)
        if let seconds = try args.value(every) { options.every = seconds }
        if let seconds = try args.value(claimTimeout) { options.claimTimeout = seconds }
        options.deleteDelivered = args.has(delete)
        if let template = try args.value(photographer) {
            do {
                options.photographer = try InboxPhotographer(template, prefix: try S3Location(config: config).inboxPrefix)
            } catch {
                throw CommandFailure(.usage, "\(error)")
            }
        }
        // A store out of reach is waited for as a gallery is: the run's own retry timings.
        options.backoff = Backoff(
            base: try args.value(RunCommand.retryBase) ?? options.backoff.base,
            cap: try args.value(RunCommand.retryCap) ?? options.backoff.cap)
        return [options]
    }
}
