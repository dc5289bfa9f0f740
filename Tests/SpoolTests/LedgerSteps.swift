import Spool

/// A step written as the list of its actions, with nothing to say: most steps are that.
extension PhotoLedger.Step: ExpressibleByArrayLiteral {
    public init(arrayLiteral actions: PhotoLedger.Action...) {
        self.init(actions)
    }
}

extension PhotoLedger.Step {
    /// A step that tells its caller `answer` (and does `actions`).
    static func answer(_ answer: PhotoLedger.Answer, _ actions: PhotoLedger.Action...) -> Self {
        Self(actions, answer: answer)
    }
}
