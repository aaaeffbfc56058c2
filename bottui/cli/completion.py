"""``bottui completion bash|zsh|fish``: print the shell's completion script.

Each script asks ``bottui __complete SHELL -- WORDS...`` (see
:mod:`bottui.cli.complete_words`) for the candidates and never evaluates
them: bash reads them line by line into an array and filters by prefix with
a quoted pattern (``compgen -W`` would expand ``$(...)`` inside its word
list); zsh hands them to ``compadd --`` (without ``-Q``, so zsh quotes
whatever it inserts; without ``-U``, so zsh matches them itself); fish takes
each output line of a function as one literal candidate. The callback only
ever answers words of safe characters, so each of these is a second wall.
"""

from __future__ import annotations

from typing import Final

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args

BASH: Final = r"""# bash completion for bottui. Install: add to ~/.bashrc
#     eval "$(bottui completion bash)"
_bottui_complete() {
    local cur=${COMP_WORDS[COMP_CWORD]} mode line
    local -a reply=()
    [[ $cur == "=" ]] && cur=
    while IFS= read -r line; do
        reply+=("$line")
    done < <(command bottui __complete bash -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
    COMPREPLY=()
    mode=${reply[0]-}
    if [[ $mode == ":files" ]]; then
        compopt -o default 2>/dev/null
        return 0
    fi
    for line in "${reply[@]:1}"; do
        [[ $line == "$cur"* ]] && COMPREPLY+=("$line")
    done
    return 0
}
complete -F _bottui_complete bottui
"""

ZSH: Final = r"""#compdef bottui
# zsh completion for bottui. Install: add to ~/.zshrc, after compinit,
#     eval "$(bottui completion zsh)"
# or save it as _bottui in a directory of $fpath.
_bottui() {
    local mode
    local -a reply
    reply=("${(@f)$(command bottui __complete zsh -- \
        "${(@)words[2,CURRENT-1]}" "$PREFIX" 2>/dev/null)}")
    mode=${reply[1]-}
    reply=("${(@)reply[2,-1]}")
    if [[ $mode == ":files" ]]; then
        _files
        return
    fi
    (( ${#reply} )) || return 1
    compadd -- "${(@)reply}"
}
if [[ ${zsh_eval_context[-1]-} == loadautofunc ]]; then
    _bottui "$@"
else
    compdef _bottui bottui
fi
"""

FISH: Final = r"""# fish completion for bottui. Install:
#     bottui completion fish > ~/.config/fish/completions/bottui.fish
function __bottui_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l reply (command bottui __complete fish -- $words[2..-1] $current 2>/dev/null)
    if test "$reply[1]" = ":files"
        __fish_complete_path $current
        return
    end
    printf '%s\n' $reply[2..-1]
end
complete -c bottui -f -a '(__bottui_complete)'
"""

SCRIPTS: Final[dict[str, str]] = {"bash": BASH, "zsh": ZSH, "fish": FISH}


def cmd_completion(args: Args, out: Output) -> int:
    """``bottui completion SHELL``: the script on stdout, as it is (no JSON form)."""
    out.out.write(SCRIPTS[args.shell])
    return EXIT_OK


__all__ = ["SCRIPTS", "cmd_completion"]
