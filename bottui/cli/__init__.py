"""The scriptable face: ``bottui COMMAND [SUBCOMMAND] [ARGS] [OPTIONS]``, and its lazy registry.

:func:`run` parses the command line (:mod:`~bottui.cli.parser`), runs one
command and renders its error, if any (:mod:`~bottui.cli.output`). Exit
codes, option placement and ``--json`` behaviour follow CONVENTIONS.md: with
``--json`` stdout holds exactly one JSON document and every message goes to
stderr. Expected failures never print a traceback.

This module is the CLI's one lazy registry: it imports its modules with
:func:`importlib.import_module` when a command needs them (not import
statements, so not in the import graph), because what a command costs is
what it imports. ``bottui --version`` imports nothing of bottui but its
version; the shells' Tab callback no parser module of another command; a
command the module of its own (:data:`COMMANDS`: name -> module, whose
``cmd_NAME`` runs it) and what that module imports. A command
whose handler is a coroutine runs under :func:`asyncio.run`; the others
never import asyncio (~30 ms with ssl).

The commands: :mod:`~bottui.cli.changes` (``limiter``, ``thresholds``,
``undo``), :mod:`~bottui.cli.revoke` (one subject or ``--from-file``),
:mod:`~bottui.cli.journal_cmd`, :mod:`~bottui.cli.inventory_cmd`,
:mod:`~bottui.cli.token_cmd`, :mod:`~bottui.cli.profile_cmd`,
:mod:`~bottui.cli.store_cmd`, :mod:`~bottui.cli.config_cmd`,
:mod:`~bottui.cli.playbook_cmd`, :mod:`~bottui.cli.timed_cmd`,
:mod:`~bottui.cli.doctor_cmd`, :mod:`~bottui.cli.completion`,
:mod:`~bottui.cli.help_topics` and :mod:`~bottui.cli.apps` (the TUI,
``demo`` and ``sandbox``). Commands that reach the service open their
session with :func:`bottui.cli.command_session.command_session`.
"""

from __future__ import annotations

import importlib
import os
import sys
from types import SimpleNamespace

from bottui import __version__

# Not typing's: ``bottui --version`` imports nothing it does not print (typing ~2 ms).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Final

    from bottui.cli.output import Output
    from bottui.cli.parser import Args


#: Command name -> (module of bottui.cli that parses and runs it, its purpose).
#: The module's ``PARSERS[name]`` adds the parser; ``cmd_NAME`` runs it.
COMMANDS: Final[dict[str, tuple[str, str]]] = {
    "limiter": ("changes", "switch a rate limiter on or off (project API token)"),
    "revoke": (
        "revoke",
        "revoke challenge grants of a visitor or a user account (personal access token)",
    ),
    "thresholds": ("changes", "set a dimension's thresholds (personal access token)"),
    "undo": ("changes", "undo this profile's last rate limiter or threshold change"),
    "inventory": (
        "inventory_cmd",
        "the profile's known accounts, projects, rate limiters and dimensions",
    ),
    "journal": ("journal_cmd", "the audit journal of every change, newest first, 50 at a time"),
    "token": ("token_cmd", "store, inspect or delete tokens (OS keyring)"),
    "store": ("store_cmd", "the team store (PostgreSQL): schema and state"),
    "profile": ("profile_cmd", "manage profiles (config.toml)"),
    "config": ("config_cmd", "check config.toml"),
    "sandbox": (
        "apps",
        "serve the sandbox emulator of the API (prints its URL and demo tokens)",
    ),
    "demo": (
        "apps",
        "run bottui against the built-in sandbox, isolated from your config and keyring",
    ),
    "help": ("help_topics", "explain a topic (exit codes, tokens, ...) or a command"),
    "playbook": (
        "playbook_cmd",
        "named lists of changes, run and reverted as one (playbooks/NAME.toml)",
    ),
    "completion": ("completion", "print the shell completion script for bash, zsh or fish"),
    "timed": ("timed_cmd", "timed changes: what reverts when; extend, cancel or revert one now"),
    "run-due": ("timed_cmd", "perform the reverts that are due (for cron or a systemd timer)"),
    "doctor": (
        "doctor_cmd",
        "check this machine: versions, terminal, keyring, tokens, API, team store, config",
    ),
}

#: Commands that do not warn about the config files at start: ``config`` lists
#: every problem itself; ``demo`` and ``sandbox`` never read the user's config.
#: (The TUI says them in a toast after its first frame.)
NO_START_CHECK: Final = frozenset({"config", "demo", "sandbox", "help", "completion"})


#: The options every (sub)command accepts, before or after it: dest -> (option,
#: metavar or None for a switch, help). Not given, each is None (a switch: False).
#: Declared here, not in the parser module that adds them: :func:`with_defaults`
#: fills them in for a bare ``bottui``, which never imports argparse.
COMMON_OPTIONS: Final[dict[str, tuple[str, str | None, str]]] = {
    "profile": ("--profile", "NAME", "profile from config.toml (default: the current one)"),
    "base_url": (
        "--base-url",
        "URL",
        "API base URL (default: BOTTUI_BASE_URL, else the profile's base_url)",
    ),
    "account": ("--account", "ACCOUNT_ID", "account id (default: the profile's account)"),
    "project": ("--project", "PROJECT_ID", "project id (default: the profile's project)"),
    "json": ("--json", None, "one JSON document on stdout; messages go to stderr"),
    "dry_run": ("--dry-run", None, "print the request(s) and an equivalent curl; send nothing"),
    "read_only": ("--read-only", None, "refuse every change (exit 2)"),
    "yes": ("--yes", None, "confirm a change on a protected profile"),
    "show_secrets": (
        "--show-secrets",
        None,
        "show the project's serverKey in the output (masked as *** otherwise)",
    ),
}


def with_defaults(args: Args) -> Args:
    """``args`` with every common option set (its default when not given)."""
    for dest, (_, metavar, _) in COMMON_OPTIONS.items():
        if not hasattr(args, dest):
            setattr(args, dest, None if metavar else False)
    return args


def parse(argv: Sequence[str] | None) -> Args:
    """The command line; a bare ``bottui`` or ``bottui demo`` skips the parser.

    Importing argparse and building a parser cost milliseconds (argparse
    looks up a translation for each of its messages), a share of the TUI's
    start-up that buys nothing when there is nothing to parse. ``test_cli``
    checks that the shortcuts give what the parser gives.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    if words == []:
        return with_defaults(SimpleNamespace(command=None))
    if words == ["demo"]:
        return with_defaults(SimpleNamespace(command="demo", team=False))
    parsed: Args = _module("parser").parse_words(words)
    return parsed


def _module(name: str) -> Any:
    """``bottui.cli.NAME`` (or ``bottui.NAME`` for a dotted one), imported now."""
    return importlib.import_module(name if "." in name else f"bottui.cli.{name}")


def run(argv: Sequence[str] | None, out: Output | None = None) -> int:
    """Parse and run one command; return the exit code."""
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["__complete"]:  # the shells' Tab callback: never parsed, never an error
        code: int = _module("tab_callback").callback(words[1:])
        return code
    output_module = _module("output")
    errors = _module("bottui.api.errors")
    output = out or output_module.Output("--json" in words)
    try:
        _module("argv_text").check_command_line(words, os.environ)
        args = parse(argv)
        output.as_json = args.json
        if args.command is None:
            code = _module("apps").cmd_tui(args, output)
            return code
        module, _ = COMMANDS[args.command]
        if args.command not in NO_START_CHECK:
            _module("command_session").warn_at_start(output, args.command)
        command = getattr(_module(module), "cmd_" + args.command.replace("-", "_"))
        done = command(args, output)
        if not isinstance(done, int):  # a coroutine: the command's event loop
            done = importlib.import_module("asyncio").run(done)
        return int(done)
    except errors.BottuiError as exc:
        code = output_module.render_error(output, exc)
        return code
    except KeyboardInterrupt:
        output.message("interrupted")
        return int(errors.EXIT_INTERRUPTED)


def _version_only(words: Sequence[str]) -> bool:
    """``bottui --version`` with nothing to refuse: printed before anything is imported.

    A ``BOTTUI_*`` variable that is not UTF-8 (it does not encode) still goes
    the long way, to be refused as every command refuses it.
    """
    if list(words) not in (["--version"], ["-V"]):
        return False
    try:
        for name, value in os.environ.items():
            if name.startswith("BOTTUI_"):
                value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point: the exit code of :func:`run`, whatever stdout can take."""
    if _version_only(sys.argv[1:] if argv is None else argv):
        try:
            sys.stdout.write(f"bottui {__version__}\n")
            sys.stdout.flush()
        except (OSError, ValueError, AttributeError):  # closed, full, or no stdout: quietly
            return int(_module("output").flush_at_exit(0))
        return 0
    streams = _module("output")
    streams.reserve_standard_fds()
    try:
        return run(argv)
    finally:
        # Also after SystemExit (argparse's --help): a full or closed stdout
        # never turns the exit code into 120 or a traceback.
        streams.flush_at_exit(0)


__all__ = ["COMMANDS", "COMMON_OPTIONS", "NO_START_CHECK", "main", "parse", "run", "with_defaults"]
