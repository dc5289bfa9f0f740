import RelayCLI
import Foundation

exit(RelayCommandLine.main(Array(CommandLine.arguments.dropFirst())))
