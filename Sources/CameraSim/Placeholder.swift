// placeholder: replaced by the module's real files
public enum CameraSimCommand {
    public static func run(arguments: [String]) -> Int32 { 2 }
}
