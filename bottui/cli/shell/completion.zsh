#compdef bottui
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
