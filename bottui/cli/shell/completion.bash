# bash completion for bottui. Install: add to ~/.bashrc
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
