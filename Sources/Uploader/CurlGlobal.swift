import CCurl

/// `curl_global_init` must run once per process before any handle exists, and is not itself
/// thread-safe; a Swift static `let` runs its initialiser exactly once, under a lock.
enum CurlGlobal {
    /// The result of the one global init (CURLE_OK's raw value is 0).
    static let initResult: UInt32 = relay_global_init_default().rawValue
}
