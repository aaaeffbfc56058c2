"""The scriptable face: ``bottui COMMAND [SUBCOMMAND] [ARGS] [OPTIONS]``.

:func:`run` parses the command line (:mod:`~bottui.cli.parser`), runs one
command and renders its error, if any (:mod:`~bottui.cli.render`). Exit
codes, option placement and ``--json`` behaviour follow CONVENTIONS.md: with
``--json`` stdout holds exactly one JSON document and every message goes to
stderr (:mod:`~bottui.cli.output`). Expected failures never print a
traceback.

One module per command group, imported only when its command runs:

* :mod:`~bottui.cli.changes`: ``limiter``, ``revoke``, ``thresholds``, ``undo``
  (and :mod:`~bottui.cli.bulk` for ``revoke --from-file``);
* :mod:`~bottui.cli.journal`, :mod:`~bottui.cli.inventory`,
  :mod:`~bottui.cli.tokens`, :mod:`~bottui.cli.profiles`,
  :mod:`~bottui.cli.config_cmd` (``config check``);
* :mod:`~bottui.cli.apps`: the TUI, ``demo`` and ``sandbox``;
* :mod:`~bottui.cli.help_cmd`: ``help [TOPIC]`` (topics in :mod:`~bottui.cli.topics`).

Commands that reach the service open their session with
:func:`bottui.cli.session.command_session`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Final

from bottui.api.errors import EXIT_INTERRUPTED, BottuiError
from bottui.cli.output import Output

#: Command name -> (module of bottui.cli, function). A function may be async.
COMMANDS: Final[dict[str, tuple[str, str]]] = {
    "limiter": ("changes", "cmd_limiter"),
    "revoke": ("changes", "cmd_revoke"),
    "thresholds": ("changes", "cmd_thresholds"),
    "undo": ("changes", "cmd_undo"),
    "token": ("tokens", "cmd_token"),
    "profile": ("profiles", "cmd_profile"),
    "inventory": ("inventory", "cmd_inventory"),
    "journal": ("journal", "cmd_journal"),
    "store": ("store", "cmd_store"),
    "config": ("config_cmd", "cmd_config"),
    "playbook": ("playbooks", "cmd_playbook"),
    "doctor": ("doctor", "cmd_doctor"),
    "sandbox": ("apps", "cmd_sandbox"),
    "demo": ("apps", "cmd_demo"),
    "help": ("help_cmd", "cmd_help"),
    "completion": ("completion", "cmd_completion"),
    "timed": ("timed", "cmd_timed"),
    "run-due": ("timed", "cmd_run_due"),
}


#: Commands that do not warn about the config files at start: ``config`` lists
#: every problem itself; ``demo`` and ``sandbox`` never read the user's config.
#: (The TUI says them in a toast after its first frame.)
NO_START_CHECK: Final = frozenset({"config", "demo", "sandbox", "help", "completion"})


def run(argv: Sequence[str] | None, out: Output | None = None) -> int:
    """Parse and run one command; return the exit code."""
    from bottui.cli.render import render_error

    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["__complete"]:  # the shells' Tab callback: never parsed, never an error
        from bottui.cli.complete_words import callback

        return callback(words[1:])
    output = out or Output("--json" in words)
    try:
        from bottui.cli.parser import parse
        from bottui.ops.argv_text import check_command_line

        check_command_line(words, os.environ)
        args = parse(argv)
        output.as_json = args.json
        if args.command is None:
            from bottui.cli.apps import cmd_tui

            return cmd_tui(args, output)
        if args.command == "demo":  # the TUI too: its collector pause must come before asyncio
            from bottui.cli.apps import cmd_demo

            return cmd_demo(args, output)
        if args.command not in NO_START_CHECK:
            from bottui.cli.config_warning import warn_at_start

            warn_at_start(output)
        # Imported here, not at the top: ``bottui --version``, a refused
        # command line and the shells' Tab callback never need asyncio (~35 ms).
        import asyncio
        import importlib
        import inspect

        module, name = COMMANDS[args.command]
        command = getattr(importlib.import_module(f"bottui.cli.{module}"), name)
        if inspect.iscoroutinefunction(command):
            code: int = asyncio.run(command(args, output))
            return code
        done: int = command(args, output)
        return done
    except BottuiError as exc:
        return render_error(output, exc)
    except KeyboardInterrupt:
        output.message("interrupted")
        return EXIT_INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point: the exit code of :func:`run`, whatever stdout can take."""
    from bottui.cli.closed_pipe import flush_at_exit, reserve_standard_fds

    reserve_standard_fds()
    try:
        return run(argv)
    finally:
        # Also after SystemExit (``--version``, argparse): a full or closed
        # stdout never turns the exit code into 120 or a traceback.
        flush_at_exit(0)


__all__ = ["COMMANDS", "Output", "main", "run"]
