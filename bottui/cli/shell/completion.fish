# fish completion for bottui. Install:
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
