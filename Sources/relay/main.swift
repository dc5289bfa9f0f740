import Foundation
import RelayCLI

exit(RelayCommandLine.main(Array(CommandLine.arguments.dropFirst())))
