import Intake
import RelayCore
import RunEvents
import Spool

/// What every session of one receiver shares.
struct FTPReceiverContext: Sendable {
    let options: FTPReceiverOptions
    let store: FTPUploadStore
    let spool: Spool
    let loginGuard: LoginGuard
    /// Nil when FTPS is off.
    let tls: TLSContext?
    let stop: StopFlag
    let report: SourceReporter
    /// With several users, the gallery gets `USER_NAME.JPG`, so two photographers'
    /// `IMG_0001.JPG` stay two photos there too.
    var multipleUsers: Bool { options.accounts.count > 1 }
}
