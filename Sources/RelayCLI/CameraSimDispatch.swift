import CameraSim

/// `relay camera-sim`: the simulator parses its own flags.
enum CameraSimDispatch {
    static func run(_ arguments: [String]) -> Int32 {
        CameraSimCommand.run(arguments: arguments)
    }
}
