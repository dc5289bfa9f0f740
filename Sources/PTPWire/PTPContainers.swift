/// An operation sent on the PTP/IP command channel.
public struct PTPOperationRequest: Equatable, Sendable {
    /// `dataPhase` value for operations with no data or data from the camera.
    public static let dataPhaseNoneOrIn: UInt32 = 1
    /// `dataPhase` value for operations that send data to the camera.
    public static let dataPhaseOut: UInt32 = 2
    /// PTP allows at most five parameters.
    public static let maxParameters = 5

    public var dataPhase: UInt32
    public var code: PTPOperationCode
    public var transactionID: UInt32
    /// 0 to 5 parameters; only the ones used are sent. Extra ones are dropped by the encoder.
    public var parameters: [UInt32]

    public init(
        dataPhase: UInt32 = PTPOperationRequest.dataPhaseNoneOrIn, code: PTPOperationCode,
        transactionID: UInt32, parameters: [UInt32] = []
    ) {
        self.dataPhase = dataPhase
        self.code = code
        self.transactionID = transactionID
        self.parameters = parameters
    }
}

/// The camera's answer to one operation, echoing its transaction id.
public struct PTPOperationResponse: Equatable, Sendable {
    public static let maxParameters = 5

    public var code: PTPResponseCode
    public var transactionID: UInt32
    public var parameters: [UInt32]

    public init(code: PTPResponseCode, transactionID: UInt32, parameters: [UInt32] = []) {
        self.code = code
        self.transactionID = transactionID
        self.parameters = parameters
    }
}

/// An event pushed on the PTP/IP event channel.
public struct PTPEvent: Equatable, Sendable {
    /// PTP events carry at most three parameters.
    public static let maxParameters = 3

    public var code: PTPEventCode
    public var transactionID: UInt32
    public var parameters: [UInt32]

    public init(code: PTPEventCode, transactionID: UInt32 = 0, parameters: [UInt32] = []) {
        self.code = code
        self.transactionID = transactionID
        self.parameters = parameters
    }
}
