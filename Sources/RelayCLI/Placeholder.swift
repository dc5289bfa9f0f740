/// Entry point of the `relay` executable; replaced by the real command set.
public enum RelayCommandLine {
    public static func main(_ arguments: [String]) -> Int32 { 0 }
}
