/// A duration or size on the command line that relay cannot use; the message names the option,
/// what was typed and what to type instead.
public enum CommandLineValueError: Error, Equatable, CustomStringConvertible {
    case notADuration(option: String, text: String)
    case durationOutOfRange(option: String, text: String, range: ClosedRange<Double>)
    case notASize(option: String, text: String)
    case sizeOutOfRange(option: String, text: String, range: ClosedRange<Int64>)

    public var description: String {
        switch self {
        case .notADuration(let option, let text):
            return "\(option) '\(text)' is not a duration: give \(DurationText.forms)"
        case .durationOutOfRange(let option, let text, let range):
            return "\(option) '\(text)' is out of range: give a duration from \(DurationText.format(range.lowerBound)) "
                + "to \(DurationText.format(range.upperBound))"
        case .notASize(let option, let text):
            return "\(option) '\(text)' is not a size: give \(ByteSizeText.forms)"
        case .sizeOutOfRange(let option, let text, let range):
            return "\(option) '\(text)' is out of range: give a size from \(ByteSizeText.format(range.lowerBound)) "
                + "to \(ByteSizeText.format(range.upperBound))"
        }
    }
}
