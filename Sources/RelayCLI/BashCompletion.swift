import CommandLineOptions

/// `relay completion bash`: a bash completion script made from the same command and option
/// declarations the parser and the help use, so it cannot offer an option relay does not take.
/// The .deb installs it as /usr/share/bash-completion/completions/relay.
enum BashCompletion {
    /// The script. It completes commands, each command's options, `config`'s actions, the words
    /// of options that take one of a few (`--priority normal|low`), and file names for options
    /// whose value is a file or folder.
    static func script(commands: [CommandSpec], otherCommands: [String]) -> String {
        var cases: [String] = []
        for command in commands {
            let options = command.options.flatMap { [$0.name] + ($0.alias.map { [$0] } ?? []) }
            var lines = ["        \(command.name))", "            options=\"\(options.joined(separator: " "))\""]
            if command.name == "config" {
                lines.append(
                    "            [ \"$COMP_CWORD\" -eq 2 ] && { COMPREPLY=($(compgen -W \"add list show use remove import\" -- \"$cur\")); return; }"
                )
            }
            lines.append("            case \"$prev\" in")
            var free: [String] = []
            for option in command.options where option.kind != .flag {
                if let completion = valueCompletion(option.placeholder) {
                    lines.append("                \(option.name)) \(completion); return ;;")
                } else {
                    free.append(option.name)
                }
            }
            // A value nothing can guess (a URL, a duration): no suggestion rather than an option.
            if !free.isEmpty { lines.append("                \(free.joined(separator: "|"))) COMPREPLY=(); return ;;") }
            lines.append("            esac")
            lines.append("            ;;")
            cases.append(lines.joined(separator: "\n"))
        }
        let names = commands.map(\.name) + otherCommands
        return """
            # bash completion for relay, made by `relay completion bash` (see relay --help).
            _relay() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} options=""
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(names.joined(separator: " ")) help --help --version" -- "$cur"))
                    return
                fi
                case "${COMP_WORDS[1]}" in
            \(cases.joined(separator: "\n"))
                    help)
                        COMPREPLY=($(compgen -W "\(commands.map(\.name).joined(separator: " "))" -- "$cur"))
                        return
                        ;;
                esac
                COMPREPLY=($(compgen -W "$options --help" -- "$cur"))
            }
            complete -F _relay relay

            """
    }

    /// What follows an option with this placeholder: its words (`normal|low`), file or folder
    /// names, or nil for a free value (a URL, a duration).
    static func valueCompletion(_ placeholder: String) -> String? {
        let words = placeholder.split(separator: "|").map(String.init)
        if words.count > 1, words.allSatisfy({ $0.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" } }) {
            return "COMPREPLY=($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))"
        }
        if ["DIR", "FOLDER", "PATH"].contains(where: { placeholder.contains($0) }) && !placeholder.contains("FILE") {
            return "COMPREPLY=($(compgen -d -- \"$cur\"))"
        }
        if ["FILE", "PEM", "KEY"].contains(where: { placeholder.contains($0) }) {
            return "COMPREPLY=($(compgen -f -- \"$cur\"))"
        }
        return nil
    }
}
