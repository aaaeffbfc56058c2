"""The ``completion`` command's place in the command line (called from ``build_parser``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

_PURPOSE = "print the shell completion script for bash, zsh or fish"

_EPILOG = """\
install (one line per shell):
  bash   add to ~/.bashrc:   eval "$(bottui completion bash)"
  zsh    add to ~/.zshrc, after compinit:   eval "$(bottui completion zsh)"
         (or: bottui completion zsh > "${fpath[1]}/_bottui")
  fish   bottui completion fish > ~/.config/fish/completions/bottui.fish

Tab then completes commands, subcommands, options, profile names and the
account, project, rate limiter and dimension ids the inventory knows (of the
--profile, --account and --project already typed, else the profile's own).
Ids holding anything but letters, digits and . _ - + @ , % / are not offered.

examples:
  bottui completion bash > /tmp/bottui.bash && . /tmp/bottui.bash
  bottui completion fish > ~/.config/fish/completions/bottui.fish

exit codes:
  0  the script was printed
  2  no such shell (bash, zsh or fish)
"""


def add_completion_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    """``bottui completion SHELL`` in the subcommands ``commands``."""
    import argparse

    sub: argparse.ArgumentParser = commands.add_parser(
        "completion",
        help=_PURPOSE,
        description=_PURPOSE + ".",
        epilog=_EPILOG,
        parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_argument(
        "shell",
        metavar="SHELL",
        choices=["bash", "zsh", "fish"],
        help="the shell to print the script for: bash, zsh or fish",
    )
