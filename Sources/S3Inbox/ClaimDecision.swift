import Foundation
import Uploader

/// What the store said about a photo's claim, after a GET of its key.
public enum ClaimSeen: Sendable, Equatable {
    /// 404: nobody has claimed the photo.
    case none
    /// A claim, with the claim object's own ETag (what a takeover's `If-Match` names) and its
    /// `Last-Modified` by the store's clock.
    case claim(InboxClaim, etag: ETag, lastModified: Date)
    /// A claim object relay cannot read (another format, a person's edit): never acted on.
    case unreadable(etag: ETag, lastModified: Date)
}

/// The condition a claim's PUT carries: the only thing that keeps two desks apart.
public enum WriteCondition: Sendable, Equatable {
    /// `If-None-Match: *`: only if no claim exists.
    case absent
    /// `If-Match: <claim ETag>`: only if the claim is still the one read.
    case matches(ETag)

    public var header: HTTPHeader {
        switch self {
        case .absent: HTTPHeader(name: "If-None-Match", value: "*")
        case .matches(let etag): HTTPHeader(name: "If-Match", value: etag.quoted)
        }
    }
}

/// What a desk does with one inbox object, decided from its claim (pure: the store's time and
/// the desk's id come in as values).
public enum ClaimDecision: Sendable, Equatable {
    /// Nobody has it: write `claim` with `If-None-Match: *`.
    case claim(InboxClaim)
    /// Another desk's `taking` claim went unrenewed for `idle` seconds (by the store's clock):
    /// write `claim` with `If-Match` on the stale claim's ETag; one desk wins.
    case takeOver(InboxClaim, from: String, idle: TimeInterval, condition: WriteCondition)
    /// The key's claim is `done` (or abandoned by this desk) for other bytes: the key was
    /// overwritten, these bytes are a new photo, said; write `claim` with `If-Match`.
    case newBytes(InboxClaim, previous: ETag, condition: WriteCondition)
    /// This desk's own claim (after a restart): go on with it; renew it with `If-Match` on `etag`.
    case resume(InboxClaim, etag: ETag)
    /// Not this desk's to take now.
    case leave(LeaveReason)

    /// The claim to PUT and its condition, for the decisions that write one.
    public var write: (claim: InboxClaim, condition: WriteCondition)? {
        switch self {
        case .claim(let claim): (claim, .absent)
        case .takeOver(let claim, _, _, let condition), .newBytes(let claim, _, let condition): (claim, condition)
        case .resume, .leave: nil
        }
    }
}

public enum LeaveReason: Sendable, Equatable {
    /// These bytes were taken and delivered (by this desk or another).
    case done(by: String)
    /// Another desk holds a live claim (`taking`, renewed `idle` seconds ago, or `spooled`, which is
    /// never taken over: its bytes are in that desk's durable spool).
    case held(by: String, state: InboxClaim.State, idle: TimeInterval)
    /// Earlier bytes under the same key are spooled and not yet delivered; the new bytes are
    /// claimed once that claim is `done`.
    case earlierBytesInDelivery(by: String, previous: ETag)
    /// The claim object is not one relay can read; someone must remove it.
    case unreadableClaim
}

/// The rules by which a desk decides on one inbox object.
public struct ClaimRules: Sendable, Equatable {
    public static let defaultTimeout: TimeInterval = 600

    /// This desk's id.
    public var desk: String
    /// `--inbox-claim-timeout`: a `taking` claim not renewed for this long is stale.
    public var timeout: TimeInterval

    /// How often a desk renews the claim it holds while it takes the photo: three renewals fit
    /// in the timeout, so one or two lost to the network do not make the claim stale.
    public var renewalInterval: TimeInterval { timeout / 3 }

    /// An HTTP date's resolution, by which the store's `Last-Modified` and `Date` are read.
    static let storeClockResolution: TimeInterval = 1

    public init(desk: String, timeout: TimeInterval = Self.defaultTimeout) {
        self.desk = desk
        self.timeout = timeout
    }

    /// The decision for `object` given its claim as `seen`, at the store's time `storeNow`.
    public func decide(_ object: InboxClaim.Object, seen: ClaimSeen, storeNow: Date) -> ClaimDecision {
        let fresh = InboxClaim(desk: desk, object: object, state: .taking, started: storeNow, renewed: storeNow)
        switch seen {
        case .none:
            return .claim(fresh)
        case .unreadable:
            return .leave(.unreadableClaim)
        case .claim(let claim, let etag, let lastModified):
            let idle = max(0, storeNow.timeIntervalSince(lastModified))
            // `Last-Modified` and `Date` are whole seconds: a claim written at 10.9 reads 10, and
            // at 11.0 would seem a second old. Stale only once it surely is.
            let stale = idle >= timeout + Self.storeClockResolution
            let ours = claim.desk == desk
            if claim.object.etag == object.etag {
                switch claim.state {
                case .done: return .leave(.done(by: claim.desk))
                case _ where ours: return .resume(claim, etag: etag)
                case .taking where stale: return .takeOver(fresh, from: claim.desk, idle: idle, condition: .matches(etag))
                case .taking, .spooled: return .leave(.held(by: claim.desk, state: claim.state, idle: idle))
                }
            }
            switch claim.state {
            case .done:
                return .newBytes(fresh, previous: claim.object.etag, condition: .matches(etag))
            case .spooled:
                return .leave(.earlierBytesInDelivery(by: claim.desk, previous: claim.object.etag))
            case .taking where ours:
                // The bytes this desk was taking are gone from the store: the new ones replace them.
                return .newBytes(fresh, previous: claim.object.etag, condition: .matches(etag))
            case .taking where stale:
                return .takeOver(fresh, from: claim.desk, idle: idle, condition: .matches(etag))
            case .taking:
                return .leave(.held(by: claim.desk, state: .taking, idle: idle))
            }
        }
    }
}
