/// A clock for deadlines that never jumps with the wall clock, shared by everything that times
/// socket work.
public enum SocketClock {
    /// Seconds since an arbitrary fixed point.
    public static func now() -> Double { SocketSystem.now() }
}
