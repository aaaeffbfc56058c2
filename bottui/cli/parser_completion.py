"""The ``completion`` command's place in the command line (called from ``build_parser``)."""

from __future__ import annotations

from typing import Any

_PURPOSE = "print the shell completion script for bash, zsh or fish"

_INSTALL = """\
Install (one line per shell):
  bash   add to ~/.bashrc:   eval "$(bottui completion bash)"
  zsh    add to ~/.zshrc, after compinit:   eval "$(bottui completion zsh)"
         (or: bottui completion zsh > "${fpath[1]}/_bottui")
  fish   bottui completion fish > ~/.config/fish/completions/bottui.fish

Tab then completes commands, subcommands, options, profile names and the
account, project, rate limiter and dimension ids the inventory knows (of the
--profile, --account and --project already typed, else the profile's own).
Ids holding anything but letters, digits and . _ - + @ , % / are not offered."""


def add_completion_parser(commands: Any) -> None:
    """``bottui completion SHELL`` in the subcommands ``commands``."""
    from bottui.cli.help_text import command

    sub = command(
        commands,
        "completion",
        _PURPOSE,
        examples=[
            "bottui completion bash > /tmp/bottui.bash && . /tmp/bottui.bash",
            "bottui completion fish > ~/.config/fish/completions/bottui.fish",
        ],
        exits=[(0, "the script was printed"), (2, "no such shell (bash, zsh or fish)")],
    )
    sub.epilog = f"{_INSTALL}\n\n{sub.epilog}"
    sub.add_argument(
        "shell",
        metavar="SHELL",
        choices=["bash", "zsh", "fish"],
        help="the shell to print the script for: bash, zsh or fish",
    )
