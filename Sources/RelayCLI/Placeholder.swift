import CameraSim

/// Entry point of the `relay` executable; replaced by the real command set.
public enum RelayCommandLine {
    public static func main(_ arguments: [String]) -> Int32 {
        if arguments.first == "camera-sim" {
            return CameraSimCommand.run(arguments: Array(arguments.dropFirst()))
        }
        return 0
    }
}
