"""The command line of ``bottui``: every command, subcommand and option.

A bare ``bottui`` (and ``bottui demo``) skips building the parser: argparse
is imported only when there is something to parse (see :func:`parse`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from bottui import __version__
from bottui.api.errors import RefusedError

if TYPE_CHECKING:
    import argparse

# Options every (sub)command accepts, before or after it. SUPPRESS keeps a
# subparser from overwriting a value given before the subcommand.
_COMMON_DEFAULTS: dict[str, Any] = {
    "profile": None,
    "base_url": None,
    "account": None,
    "project": None,
    "json": False,
    "dry_run": False,
    "read_only": False,
    "yes": False,
    "show_secrets": False,
}


#: The parsed command line. A plain namespace (argparse fills it in place),
#: so the shortcut of :func:`parse` needs no argparse: importing it costs ~2.5 ms
#: of the TUI's start-up.
Args: TypeAlias = SimpleNamespace


class UsageError(RefusedError):
    """Invalid flags or values (exit 2)."""


def _common() -> argparse.ArgumentParser:
    import argparse

    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    group = common.add_argument_group("common options")
    group.add_argument("--profile", metavar="NAME", help="profile from config.toml")
    group.add_argument("--base-url", metavar="URL", help="API base URL (or BOTTUI_BASE_URL)")
    group.add_argument("--account", metavar="ID", help="account id")
    group.add_argument("--project", metavar="ID", help="project id")
    group.add_argument("--json", action="store_true", help="one JSON document on stdout")
    group.add_argument(
        "--dry-run", action="store_true", help="print the request(s) and a curl; send nothing"
    )
    group.add_argument("--read-only", action="store_true", help="refuse every change")
    group.add_argument("--yes", action="store_true", help="confirm a change (protected profiles)")
    group.add_argument(
        "--show-secrets", action="store_true", help="show serverKey in output (masked otherwise)"
    )
    return common


def _positive(text: str) -> int:
    """A positive integer option value (argparse ``type``)."""
    import argparse

    try:
        value = int(text.strip())
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


def _entry_id(text: str) -> int:
    """A journal id as shown (``#1234``) or bare (argparse ``type``)."""
    return _positive(text.strip().removeprefix("#"))


_REASON_HELP = (
    "why (journaled with the change, e.g. an incident id); a profile with "
    "require_reason = true refuses a change without one (exit 2)"
)


def _reason(parser: argparse.ArgumentParser) -> None:
    """``--reason TEXT`` on a command that changes something."""
    parser.add_argument("--reason", metavar="TEXT", default=None, help=_REASON_HELP)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        """An ArgumentParser that raises instead of exiting, so main picks the code."""

        def error(self, message: str) -> NoReturn:
            raise UsageError("Invalid command line", f"{message} (see `{self.prog} --help`)")

    common = _common()
    parser: argparse.ArgumentParser = _Parser(
        prog="bottui",
        description="Terminal console for the bot-protection management API. "
        "Without a command, starts the TUI.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"bottui {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(group: Any, name: str, help_text: str) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = group.add_parser(
            name, help=help_text, description=help_text, parents=[common]
        )
        return sub

    limiter = add(commands, "limiter", "switch a rate limiter on or off")
    limiter_cmds = limiter.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action in ("enable", "disable"):
        sub = add(limiter_cmds, action, f"{action} a rate limiter (project API token)")
        sub.add_argument("limiter_id", metavar="LIMITER_ID")
        _reason(sub)

    revoke = add(commands, "revoke", "revoke challenge grants (personal access token)")
    revoke.add_argument("--visitor-id", metavar="V")
    revoke.add_argument("--user-account-id", metavar="U")
    revoke.add_argument("--from-file", metavar="F", help="bulk: ids from a file, or - for stdin")
    revoke.add_argument(
        "--concurrency",
        type=int,
        default=32,
        metavar="N",
        help="bulk: requests in flight, 1 to 512 (default 32)",
    )
    revoke.add_argument("--resume", action="store_true", help="bulk: skip ids already done")
    revoke.add_argument(
        "--force", action="store_true", help="bulk: run even while the same input runs"
    )
    revoke.add_argument("--output", metavar="F", help="bulk: results.csv or results.jsonl")
    _reason(revoke)

    thresholds = add(commands, "thresholds", "dimension thresholds")
    th_cmds = thresholds.add_subparsers(dest="action", metavar="ACTION", required=True)
    th_set = add(th_cmds, "set", "replace a dimension's name and thresholds")
    th_set.add_argument("dimension_id", metavar="DIMENSION_ID")
    th_set.add_argument("--name", required=True)
    th_set.add_argument("--block", required=True, metavar="X", help="block threshold")
    th_set.add_argument("--challenge", required=True, metavar="Y", help="challenge threshold")
    th_set.add_argument("--force", action="store_true", help="send even outside the range")
    _reason(th_set)

    inventory = add(commands, "inventory", "the profile's known accounts, projects, ids")
    inv_cmds = inventory.add_subparsers(dest="action", metavar="ACTION", required=True)
    inv_import = add(inv_cmds, "import", "merge a TOML inventory file; report what changed")
    inv_import.add_argument("file", metavar="FILE")
    inv_export = add(inv_cmds, "export", "write the inventory to a TOML file")
    inv_export.add_argument("file", metavar="FILE")
    add(inv_cmds, "list", "show the inventory")

    journal = add(
        commands, "journal", "the audit journal of every change, newest first, 50 at a time"
    )
    journal.add_argument(
        "--since", metavar="ISO", help="entries started at or after (UTC unless an offset is given)"
    )
    journal.add_argument("--until", metavar="ISO", help="entries started before")
    journal.add_argument("--unfinished", action="store_true", help="only entries with no outcome")
    journal.add_argument(
        "--operation", metavar="OP", help="only this operation: limiter, thresholds or revoke"
    )
    journal.add_argument(
        "--outcome", metavar="WORD", help="ok, api-error, ... or succeeded, failed, unknown"
    )
    journal.add_argument(
        "--operator", metavar="NAME", help="only changes made by this operator (exact)"
    )
    journal.add_argument(
        "--reason",
        metavar="TEXT",
        help="only changes whose reason holds TEXT (any case)",
    )
    journal.add_argument(
        "--run", dest="run_id", type=_entry_id, metavar="RUN_ID", help="only one bulk run's entries"
    )
    journal.add_argument(
        "--limit", type=_positive, metavar="N", help="at most N entries (default 50, at most 10000)"
    )
    journal.add_argument(
        "--before", type=_entry_id, metavar="ID", help="only entries older than #ID: the next page"
    )
    journal.add_argument("--all", action="store_true", help="every entry that matches, streamed")
    journal.add_argument("--jsonl", action="store_true", help="JSON Lines: one entry per line")
    journal.add_argument(
        "--follow",
        action="store_true",
        help="after the newest page, print new entries as they arrive (Ctrl-C ends)",
    )
    journal.add_argument("--export", metavar="FILE", help="write the entries (all unless --limit)")
    journal.add_argument(
        "--format", choices=["jsonl", "csv"], help="export format (default: from FILE's extension)"
    )

    undo = add(commands, "undo", "undo this profile's last rate limiter or threshold change")
    undo.add_argument(
        "--kind",
        choices=["limiter", "thresholds"],
        help="which kind of change (default: the newer of the two)",
    )
    _reason(undo)

    token = add(commands, "token", "store, inspect or delete tokens (OS keyring)")
    token_cmds = token.add_subparsers(dest="action", metavar="ACTION", required=True)
    token_set = add(token_cmds, "set", "store a token read from a hidden prompt or stdin")
    token_set.add_argument("kind", choices=["personal", "project", "store"])
    add(token_cmds, "status", "which tokens are stored (never their values)")
    token_del = add(token_cmds, "delete", "delete a stored token")
    token_del.add_argument("kind", choices=["personal", "project", "store"])

    store = add(commands, "store", "the team store (PostgreSQL): schema and state")
    store_cmds = store.add_subparsers(dest="action", metavar="ACTION", required=True)
    add(store_cmds, "migrate", "create or upgrade the shared schema (idempotent)")
    add(store_cmds, "status", "where the store is, its schema version, what waits to be shared")
    sync = add(store_cmds, "sync", "push the journal entries not yet shared, now")
    sync.add_argument(
        "--backfill",
        action="store_true",
        help="also share the history written before the store was configured",
    )

    profile = add(commands, "profile", "manage profiles")
    profile_cmds = profile.add_subparsers(dest="action", metavar="ACTION", required=True)
    p_add = add(profile_cmds, "add", "add a profile")
    p_add.add_argument("name")
    p_add.add_argument("--protected", action="store_true")
    p_add.add_argument("--replace", action="store_true", help="replace an existing profile")
    add(profile_cmds, "list", "list profiles")
    p_use = add(profile_cmds, "use", "make a profile the current one")
    p_use.add_argument("name")
    p_rm = add(profile_cmds, "remove", "remove a profile")
    p_rm.add_argument("name")

    config = add(commands, "config", "check config.toml")
    config_cmds = config.add_subparsers(dest="action", metavar="ACTION", required=True)
    add(config_cmds, "check", "every unknown key, wrong value and keymap mistake, by line")

    sandbox = add(commands, "sandbox", "serve the sandbox emulator of the API")
    sandbox.add_argument("--host", default="127.0.0.1")
    sandbox.add_argument("--port", type=int, default=8765)
    sandbox.add_argument("--latency", type=float, default=0.0, help="seconds per request")

    demo = add(commands, "demo", "run bottui against the built-in sandbox, isolated")
    demo.add_argument(
        "--team",
        action="store_true",
        help="team mode: a throwaway PostgreSQL and a scripted teammate whose changes "
        "arrive live (pip install 'bottui[demo]')",
    )
    from bottui.cli.parser_timed import add_timed

    add_timed(commands, add)
    return parser


def parse(argv: Sequence[str] | None) -> Args:
    """The command line; a bare ``bottui`` or ``bottui demo`` skips building the parser.

    Building the parser of every command costs ~8 ms (argparse looks up a
    translation for each of its messages), a share of the TUI's start-up that
    buys nothing when there is nothing to parse. ``test_cli`` checks that
    both shortcuts give what the parser gives.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    if words == []:
        return with_defaults(Args(command=None))
    if words == ["demo"]:
        return with_defaults(Args(command="demo", team=False))
    return with_defaults(build_parser().parse_args(argv, namespace=Args()))


def with_defaults(args: Args) -> Args:
    """``args`` with every common option set (its default when not given)."""
    for key, value in _COMMON_DEFAULTS.items():
        if not hasattr(args, key):
            setattr(args, key, value)
    return args
