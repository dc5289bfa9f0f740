/// A duration or size on the command line that relay cannot use; the message names the option,
/// what was typed and what to type instead.
public enum CommandLineValueError: Error, Equatable, CustomStringConvertible {
    case notADuration(option: String, text: String)
    case durationOutOfRange(option: String, text: String, range: ClosedRange<Double>)
    case notASize(option: String, text: String)
    case sizeOutOfRange(option: String, text: String, range: ClosedRange<Int64>)

    public var description: String {
        switch self {
        case let .notADuration(option, text):
            return "\(option) '\(text)' is not a duration: give \(DurationText.forms)"
        case let .durationOutOfRange(option, text, range):
            return "\(option) '\(text)' is out of range: give a duration from \(DurationText.format(range.lowerBound)) "
                + "to \(DurationText.format(range.upperBound))"
        case let .notASize(option, text):
            return "\(option) '\(text)' is not a size: give \(ByteSizeText.forms)"
        case let .sizeOutOfRange(option, text, range):
            return "\(option) '\(text)' is out of range: give a size from \(ByteSizeText.format(range.lowerBound)) "
                + "to \(ByteSizeText.format(range.upperBound))"
        }
    }
}
