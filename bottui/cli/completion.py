"""``bottui completion bash|zsh|fish``: the shells' scripts, and the command tree they walk.

``bottui completion bash|zsh|fish`` prints the shell's completion script. Each
script asks ``bottui __complete SHELL -- WORDS...`` (below) for the candidates
and never evaluates them: bash reads them line by line into an array and
filters by prefix with a quoted pattern (``compgen -W`` would expand ``$(...)``
inside its word list); zsh hands them to ``compadd --`` (without ``-Q``, so zsh
quotes whatever it inserts; without ``-U``, so zsh matches them itself); fish
takes each output line of a function as one literal candidate. The callback
only ever answers words of safe characters, so each of these is a second wall.
The callback is :mod:`bottui.cli.tab_callback`; it walks the command line as
data, :data:`~bottui.cli.tab_callback.TREE_FILE`, which :func:`tree` writes
from the parser (``docs/generate.py``; ``tests/test_docs.py`` fails while it
differs).

Why not argcomplete or shtab (#29 asked for one of them; measured on
argcomplete 3.7.2 and shtab 1.13.0, pip-installed, 2026-11-28):

* argcomplete's bash glue assigns the answer unquoted,
  ``COMPREPLY=($(... "$1"))``: each candidate goes through pathname
  expansion. Fed a callback that answers ``*``, it offered the names of the
  files of the working directory. The scripts here take each line as one
  literal word (``IFS= read -r``; zsh ``compadd --``; fish's own lines), a
  second wall behind :func:`~bottui.cli.tab_callback.safe` that
  ``test_a_lying_callback_is_never_evaluated`` holds in real bash, zsh and
  fish. Its zsh glue hands the answer to ``_describe``, which splits a
  candidate at ``:``.
* shtab writes static scripts (no Python at a Tab for commands and options),
  but an id has to come from a command: ``shtab.cmd`` feeds its output to
  ``compgen -W "$(...)"``, which expands ``$(...)`` and backticks inside the
  words: an id ``$(touch x)`` from a server would run.
* ``import argcomplete`` adds subprocess, threading, selectors, signal and
  locale to every Tab: 10-14 ms (``python -X importtime``, cumulative,
  argparse already loaded) on the busy 2-core machine, where ``python -c
  pass`` costs ~22 ms of CPU (``tests/bench/cli_startup.py``) and a Tab is
  held to 2x that.

So the protocol stays this small one. The callback walks the command line
as data (:data:`~bottui.cli.tab_callback.TREE_FILE`, written from the parser
by :func:`tree`), not the parser itself: each command's parser sits beside
its handler, and building one would import the handler's whole module at
every Tab.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, Final

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, command
from bottui.cli.tab_callback import Node

#: Where the shells' scripts are kept (``shell/completion.SHELL``, package data): shell
#: code, not Python; only the one asked for is read.
SCRIPT_DIR: Final = os.path.join(os.path.dirname(__file__), "shell")


def script(shell: str) -> str:
    """The completion script of ``shell`` (bash, zsh or fish), as written."""
    with open(os.path.join(SCRIPT_DIR, f"completion.{shell}"), encoding="utf-8") as file:
        return file.read()


def cmd_completion(args: Args, out: Output) -> int:
    """``bottui completion SHELL``: the script on stdout, as it is (no JSON form)."""
    out.out.write(script(args.shell))
    return EXIT_OK


def tree(parser: argparse.ArgumentParser) -> Node:
    """``parser`` and its subcommands as data: what the Tab callback walks.

    ``docs/generate.py`` writes :data:`TREE_FILE` from the whole parser, and
    ``tests/test_docs.py`` fails while it differs: the file cannot drift.
    """
    node: Node = {"options": {}, "shown": [], "args": []}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            commands = {name: tree(sub) for name, sub in action.choices.items()}
            shown = [choice.dest for choice in action._choices_actions]
            node["args"].append({"commands": commands, "shown": shown})
            continue
        about = {
            "dest": action.dest,
            "metavar": action.metavar,
            "value": action.nargs != 0,
            "choices": None if action.choices is None else [str(c) for c in action.choices],
        }
        for option in action.option_strings:
            node["options"][option] = about
            if action.help != argparse.SUPPRESS:
                node["shown"].append(option)
        if not action.option_strings:
            node["args"].append({**about, "many": action.nargs not in (None, 1)})
    return node


def tree_text(parser: argparse.ArgumentParser) -> str:
    """:data:`TREE_FILE`'s text for ``parser``."""
    return json.dumps(tree(parser), indent=1) + "\n"


def _add_completion(commands: Any) -> None:
    """``bottui completion SHELL`` in the subcommands ``commands``."""
    sub = command(
        commands,
        "completion",
        examples=[
            "bottui completion bash > /tmp/bottui.bash && . /tmp/bottui.bash",
            "bottui completion fish > ~/.config/fish/completions/bottui.fish",
        ],
        exits=[(0, "the script was printed"), (2, "no such shell (bash, zsh or fish)")],
        notes="completion",
    )
    sub.add_argument(
        "shell",
        metavar="SHELL",
        choices=["bash", "zsh", "fish"],
        help="the shell to print the script for: bash, zsh or fish",
    )


#: The command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"completion": _add_completion}
