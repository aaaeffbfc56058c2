"""The scriptable face: ``bottui COMMAND [SUBCOMMAND] [ARGS] [OPTIONS]``.

Parses the command line, builds a :class:`~bottui.ops.session.Session`, runs
one operation of :mod:`bottui.ops`, and renders the result or the error.
Exit codes, option placement and ``--json`` behaviour follow CONVENTIONS.md:
with ``--json`` stdout holds exactly one JSON document and every message
goes to stderr. Expected failures never print a traceback.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeAlias

from bottui import __version__
from bottui.api.errors import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    BottuiError,
    RefusedError,
)
from bottui.plaintext import clean, show_id

if TYPE_CHECKING:
    import argparse

    from bottui.api.requests import PreparedRequest
    from bottui.ops.session import Session
    from bottui.store.inventory import Inventory

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
#: so the shortcut of ``_parse`` needs no argparse: importing it costs ~2.5 ms
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

    revoke = add(commands, "revoke", "revoke challenge grants (personal access token)")
    revoke.add_argument("--visitor-id", metavar="V")
    revoke.add_argument("--user-account-id", metavar="U")
    revoke.add_argument("--from-file", metavar="F", help="bulk: ids from a file, or - for stdin")
    revoke.add_argument("--concurrency", type=int, default=32, metavar="N")
    revoke.add_argument("--resume", action="store_true", help="bulk: skip ids already done")
    revoke.add_argument(
        "--force", action="store_true", help="bulk: run even while the same input runs"
    )
    revoke.add_argument("--output", metavar="F", help="bulk: results.csv or results.jsonl")

    thresholds = add(commands, "thresholds", "dimension thresholds")
    th_cmds = thresholds.add_subparsers(dest="action", metavar="ACTION", required=True)
    th_set = add(th_cmds, "set", "replace a dimension's name and thresholds")
    th_set.add_argument("dimension_id", metavar="DIMENSION_ID")
    th_set.add_argument("--name", required=True)
    th_set.add_argument("--block", required=True, metavar="X", help="block threshold")
    th_set.add_argument("--challenge", required=True, metavar="Y", help="challenge threshold")
    th_set.add_argument("--force", action="store_true", help="send even outside the range")

    inventory = add(commands, "inventory", "the profile's known accounts, projects, ids")
    inv_cmds = inventory.add_subparsers(dest="action", metavar="ACTION", required=True)
    inv_import = add(inv_cmds, "import", "merge a TOML inventory file; report what changed")
    inv_import.add_argument("file", metavar="FILE")
    inv_export = add(inv_cmds, "export", "write the inventory to a TOML file")
    inv_export.add_argument("file", metavar="FILE")
    add(inv_cmds, "list", "show the inventory")

    journal = add(commands, "journal", "the audit journal of every change, newest first")
    journal.add_argument("--since", metavar="ISO", help="entries started at or after (UTC)")
    journal.add_argument("--unfinished", action="store_true", help="only entries with no outcome")
    journal.add_argument(
        "--operation", metavar="OP", help="only this operation: limiter, thresholds or revoke"
    )
    journal.add_argument(
        "--outcome", metavar="WORD", help="ok, api-error, ... or succeeded, failed, unknown"
    )
    journal.add_argument("--limit", type=int, metavar="N", help="at most N entries")
    journal.add_argument("--export", metavar="FILE", help="write the entries to FILE")
    journal.add_argument(
        "--format", choices=["jsonl", "csv"], help="export format (default: from FILE's extension)"
    )

    undo = add(commands, "undo", "undo this profile's last rate limiter or threshold change")
    undo.add_argument(
        "--kind",
        choices=["limiter", "thresholds"],
        help="which kind of change (default: the newer of the two)",
    )

    token = add(commands, "token", "store, inspect or delete tokens (OS keyring)")
    token_cmds = token.add_subparsers(dest="action", metavar="ACTION", required=True)
    token_set = add(token_cmds, "set", "store a token read from a hidden prompt or stdin")
    token_set.add_argument("kind", choices=["personal", "project"])
    add(token_cmds, "status", "which tokens are stored (never their values)")
    token_del = add(token_cmds, "delete", "delete a stored token")
    token_del.add_argument("kind", choices=["personal", "project"])

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

    sandbox = add(commands, "sandbox", "serve the sandbox emulator of the API")
    sandbox.add_argument("--host", default="127.0.0.1")
    sandbox.add_argument("--port", type=int, default=8765)
    sandbox.add_argument("--latency", type=float, default=0.0, help="seconds per request")

    add(commands, "demo", "run bottui against the built-in sandbox, isolated")
    return parser


def _parse(argv: Sequence[str] | None) -> Args:
    """The command line; a bare ``bottui`` or ``bottui demo`` skips building the parser.

    Building the parser of every command costs ~8 ms (argparse looks up a
    translation for each of its messages), a share of the TUI's start-up that
    buys nothing when there is nothing to parse. ``test_cli`` checks that
    both shortcuts give what the parser gives.
    """
    words = list(sys.argv[1:] if argv is None else argv)
    if words in ([], ["demo"]):
        return _options(Args(command=words[0] if words else None))
    return _options(build_parser().parse_args(argv, namespace=Args()))


def _options(args: Args) -> Args:
    for key, value in _COMMON_DEFAULTS.items():
        if not hasattr(args, key):
            setattr(args, key, value)
    return args


# -- output ---------------------------------------------------------------------------


class Output:
    """Where things are printed: one JSON document with --json, lines otherwise."""

    def __init__(self, as_json: bool, out: TextIO | None = None, err: TextIO | None = None):
        from bottui.closed_pipe import guard

        self.as_json = as_json
        # A reader that stops early (| head) ends the command quietly.
        self.out = guard(out or sys.stdout)
        self.err = guard(err or sys.stderr)

    def line(self, text: str = "") -> None:
        """A human line: stdout normally, stderr under --json."""
        print(text, file=self.err if self.as_json else self.out)

    def message(self, text: str) -> None:
        """A message that is never part of the result: always stderr."""
        print(text, file=self.err)

    def document(self, doc: Any) -> None:
        """The one JSON document of --json (C1 and bidi controls escaped)."""
        from bottui.store import safe_json

        safe_json.dump(doc, self.out, indent=2)
        self.out.write("\n")

    def error(self, title: str, details: str, doc: dict[str, Any]) -> None:
        """Report a failure: words on stderr, and the error document under --json."""
        self.message(f"error: {clean(title)}")
        if details:
            for part in clean(details, keep_newlines=True).splitlines():
                self.message(f"  {part}")
        if self.as_json:
            self.document(doc)


# -- session --------------------------------------------------------------------------


def make_session(args: Args) -> Session:
    """A session from the common options, the environment and the config."""
    from bottui.ops.session import session_from_options
    from bottui.store.config import ConfigStore
    from bottui.store.paths import Locations

    locations = Locations.default()
    return session_from_options(locations, ConfigStore(locations).load(), args)


def print_dry_run(out: Output, requests: Sequence[PreparedRequest]) -> None:
    """Print the exact request(s) and an equivalent curl; the token stays a variable."""
    from bottui.api.curl import request_json, request_lines

    if out.as_json:
        out.document({"dryRun": True, "requests": [request_json(r) for r in requests]})
        return
    for request in requests:
        for shown_line in request_lines(request):
            out.line(clean(shown_line))
    out.message("dry run: nothing was sent")


# -- commands -------------------------------------------------------------------------


async def cmd_limiter(args: Args, out: Output) -> int:
    """``bottui limiter enable|disable LIMITER_ID``."""
    from bottui.ops import mutations

    session = make_session(args)
    try:
        account, project = session.project_scope(args.account, args.project)
        is_active = args.action == "enable"
        if args.dry_run:
            request = mutations.plan_limiter(session, account, project, args.limiter_id, is_active)
            print_dry_run(out, [request])
            return EXIT_OK
        applied = await mutations.set_limiter(
            session, account, project, args.limiter_id, is_active, confirmed=args.yes
        )
        change = applied.value
        if out.as_json:
            out.document(change.project.to_json(show_secrets=args.show_secrets))
        else:
            state = "ON (active)" if change.is_active else "OFF (inactive)"
            how = (
                "as the returned project says"
                if change.source.value == "response"
                else "as sent; the returned project does not list it"
            )
            out.line(f"rate limiter {show_id(args.limiter_id)}: {state}, {how}")
            _print_project(out, change.project, show_secrets=args.show_secrets)
        return EXIT_OK
    finally:
        _flush_warnings(session, out)
        await session.aclose()


def _print_project(out: Output, project: Any, *, show_secrets: bool) -> None:
    from bottui.api.models import SECRET_MASK

    fields = [
        ("project", project.id),
        ("name", project.name),
        ("url", project.url),
        ("protected", project.is_protected),
        ("siteKey", project.site_key),
        (
            "serverKey",
            project.server_key if show_secrets or project.server_key is None else SECRET_MASK,
        ),
        ("updatedAt", project.updated_at),
    ]
    for label, value in fields:
        if value is not None:
            shown = show_id(value) if label == "project" else clean(value)
            out.line(f"  {label}: {shown}")
    for limiter in project.rate_limiters:
        state = {True: "ON", False: "OFF", None: "?"}[limiter.is_active]
        name = f" ({clean(limiter.name)})" if limiter.name else ""
        out.line(f"  limiter {show_id(limiter.id)}{name}: {state}")


async def cmd_revoke(args: Args, out: Output) -> int:
    """``bottui revoke`` for one subject (bulk: ``--from-file``)."""
    from bottui.ops import mutations

    if args.from_file is not None:
        from bottui.cli.bulk import run_bulk_revoke

        code: int = await run_bulk_revoke(args, out, make_session(args))
        return code
    if args.resume or args.output or args.force:
        raise UsageError("Invalid command line", "--resume, --output, --force need --from-file")
    session = make_session(args)
    try:
        account, project = session.project_scope(args.account, args.project)
        if args.dry_run:
            request = mutations.plan_revocation(
                session,
                account,
                project,
                visitor_id=args.visitor_id,
                user_account_id=args.user_account_id,
            )
            print_dry_run(out, [request])
            return EXIT_OK
        applied = await mutations.revoke(
            session,
            account,
            project,
            visitor_id=args.visitor_id,
            user_account_id=args.user_account_id,
            confirmed=args.yes,
        )
        revocation = applied.value
        if out.as_json:
            out.document(revocation.to_json())
        else:
            out.line(f"revocation: {revocation.outcome.value}")
            for label, value in (
                ("reportId", revocation.report_id),
                ("grantExpiresAt", revocation.grant_expires_at),
                ("grantRemainingAttempts", revocation.grant_remaining_attempts),
            ):
                if value is not None:
                    out.line(f"  {label}: {clean(value)}")
            if revocation.outcome.value == "unknown (retried)":
                out.line(
                    "  an earlier attempt may have withdrawn the grant before the "
                    "connection failed; the retry found nothing standing"
                )
        return EXIT_OK
    finally:
        _flush_warnings(session, out)
        await session.aclose()


async def cmd_thresholds(args: Args, out: Output) -> int:
    """``bottui thresholds set DIMENSION_ID --name N --block X --challenge Y``."""
    from bottui.api.client import build_thresholds
    from bottui.ops import mutations, threshold_rules

    session = make_session(args)
    try:
        account, project = session.project_scope(args.account, args.project)
        thresholds = build_thresholds(args.name, args.block, args.challenge)
        settings = session.settings.project_settings(account, project)
        for warning in threshold_rules.check(thresholds, settings, force=args.force):
            out.message(f"warning: {warning}")
        if args.dry_run:
            request = mutations.plan_thresholds(
                session, account, project, args.dimension_id, thresholds
            )
            print_dry_run(out, [request])
            return EXIT_OK
        await mutations.set_thresholds(
            session, account, project, args.dimension_id, thresholds, confirmed=args.yes
        )
        if out.as_json:
            out.document(thresholds.to_json(args.dimension_id))
        else:
            out.line(
                f"dimension {show_id(args.dimension_id)} ({clean(thresholds.name)}): "
                f"block {thresholds.block}, challenge {thresholds.challenge}"
            )
        return EXIT_OK
    finally:
        _flush_warnings(session, out)
        await session.aclose()


def _open_inventory(session: Session) -> Inventory:
    inventory = session.inventory
    if inventory is None:
        raise RefusedError("Inventory unavailable", "; ".join(session.take_warnings()))
    return inventory


def cmd_inventory(args: Args, out: Output) -> int:
    """``bottui inventory import FILE | export FILE | list``."""
    from pathlib import Path

    session = make_session(args)
    inventory = _open_inventory(session)
    try:
        if args.action == "import":
            report = inventory.import_toml(Path(args.file))
            if out.as_json:
                out.document({"file": args.file, **report.to_json()})
            else:
                out.line(
                    f"imported {clean(args.file)}: {report.added} added, "
                    f"{report.changed} changed, {report.unchanged} unchanged"
                )
                for change in report.lines:
                    out.line(f"  {clean(change)}")
            return EXIT_OK
        if args.action == "export":
            snapshot = inventory.export_toml(Path(args.file))
            counts = {
                "accounts": len(snapshot.accounts),
                "projects": len(snapshot.projects),
                "limiters": len(snapshot.limiters),
                "dimensions": len(snapshot.dimensions),
            }
            if out.as_json:
                out.document({"file": args.file, **counts})
            else:
                what = ", ".join(f"{n} {name}" for name, n in counts.items())
                out.line(f"exported {what} to {clean(args.file)}")
            return EXIT_OK
        doc = inventory.to_dict()
        if out.as_json:
            out.document(doc)
        else:
            _print_inventory(out, doc)
        return EXIT_OK
    finally:
        _flush_warnings(session, out)
        inventory.close()


def _print_inventory(out: Output, doc: dict[str, Any]) -> None:
    def named(ident: str, name: str | None) -> str:
        return show_id(ident) + (f" ({clean(name)})" if name else "")

    out.line(f"profile {clean(doc['profile'])}")
    if not any(doc[key] for key in ("accounts", "projects", "limiters", "dimensions")):
        out.line("  empty: bottui inventory import FILE, or make a change")
        return
    for account in doc["accounts"]:
        out.line(f"account {named(account['account'], account['name'])}")
        for project in (p for p in doc["projects"] if p["account"] == account["account"]):
            out.line(f"  project {named(project['project'], project['name'])}")
            key = (project["account"], project["project"])
            for limiter in (r for r in doc["limiters"] if (r["account"], r["project"]) == key):
                state = {True: "ON", False: "OFF", None: "unknown"}[limiter["is_active"]]
                out.line(
                    f"    limiter {named(limiter['id'], limiter['name'])}: {state}"
                    f"  ({clean(limiter['source'])}, {clean(limiter['known_at'])[:19]}Z)"
                )
            for dim in (d for d in doc["dimensions"] if (d["account"], d["project"]) == key):
                known = dim["block"] is not None and dim["challenge"] is not None
                values = (
                    f"block {clean(dim['block'])}, challenge {clean(dim['challenge'])}"
                    if known
                    else "thresholds unknown"
                )
                out.line(f"    dimension {named(dim['id'], dim['name'])}: {values}")


def cmd_journal(args: Args, out: Output) -> int:
    """``bottui journal [--since ISO] [--project P] [--unfinished] [--export FILE]``.

    Every profile's entries unless ``--profile`` (or ``--account``/``--project``) is given.
    """
    from pathlib import Path

    from bottui.ops import journal_view

    if args.format and not args.export:
        raise UsageError("Invalid command line", "--format goes with --export FILE")
    fmt = journal_view.export_format(Path(args.export), args.format) if args.export else None
    operation = journal_view.operation_named(args.operation) if args.operation else None
    query = journal_view.JournalQuery(
        since=args.since,
        profile=args.profile,
        account=args.account,
        project=args.project,
        operation=operation,
        outcome="unfinished" if args.unfinished else args.outcome,
        limit=args.limit,
    )
    # Not a session: the journal is read as it is, so --profile may name a
    # profile that no longer exists in the config.
    from bottui.store.journal import Journal
    from bottui.store.paths import Locations
    from bottui.store.tokens import TokenStore

    with Journal.at(Locations.default()) as journal:
        entries = journal_view.read(journal, query, tokens=TokenStore(timeout=1.0))
    if args.export:
        assert fmt is not None
        count = journal_view.export(entries, Path(args.export), fmt)
        if out.as_json:
            out.document({"exported": count, "file": args.export, "format": fmt})
        else:
            out.line(f"exported {count} entries to {clean(args.export)} ({fmt})")
        return EXIT_OK
    if out.as_json:
        out.document({"count": len(entries), "entries": [e.to_json() for e in entries]})
        return EXIT_OK
    if not entries:
        out.line("no journal entries match")
    for entry in entries:
        out.line(show_id(journal_view.line(entry)))
    unfinished = sum(1 for e in entries if e.unfinished)
    if unfinished:
        out.message(
            f"{unfinished} UNFINISHED: started, no outcome (still running, or cut off by a "
            "crash); the service may or may not have applied them"
        )
    return EXIT_OK


async def cmd_undo(args: Args, out: Output) -> int:
    """``bottui undo [--kind limiter|thresholds] [--yes] [--dry-run]``."""
    from bottui.ops import undo

    session = make_session(args)
    try:
        try:
            plan = undo.find(session, args.kind)
        except undo.UndoRefused as exc:
            if exc.other is not None:
                exc.details += f" (to undo the last {exc.other} change instead: --kind {exc.other})"
            raise
        out.line(f"undo: {clean(plan.summary())}")
        request = undo.plan_request(session, plan)
        if args.dry_run:
            print_dry_run(out, [request])
            return EXIT_OK
        session.check_may_change(confirmed=args.yes)
        if not args.yes:
            _confirm_on_terminal(out, "Send this undo?")
        applied = await undo.apply(session, plan, confirmed=True)
        if out.as_json:
            out.document({**plan.to_json(), "journalId": applied.journal_id})
        else:
            entry = (
                f"journal entry #{applied.journal_id}" if applied.journal_id else "not journaled"
            )
            out.line(
                f"undone: {clean(plan.what)} of {show_id(plan.account)}/{show_id(plan.project)} "
                f"is {clean(plan.restored)} again ({entry}, undoes #{plan.entry.id})"
            )
        return EXIT_OK
    finally:
        _flush_warnings(session, out)
        await session.aclose()


def _confirm_on_terminal(out: Output, question: str) -> None:
    """Ask y/N on a terminal; refuse (exit 2) when there is none or the answer is not yes."""
    if not sys.stdin.isatty():
        raise UsageError(
            "Not confirmed", "stdin is not a terminal: pass --yes to confirm; nothing was sent"
        )
    out.err.write(f"{question} [y/N] ")
    out.err.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError("Not confirmed", "nothing was sent")


def _read_secret(kind: str) -> str:
    label = "Personal access token" if kind == "personal" else "Project API token"
    if sys.stdin.isatty():
        import getpass

        value = getpass.getpass(f"{label} (input hidden): ")
    else:
        value = sys.stdin.readline()
    value = value.strip()
    if not value:
        raise UsageError("No token given", "type it at the prompt or pipe it on stdin")
    return value


def cmd_token(args: Args, out: Output) -> int:
    """``bottui token set|status|delete``."""
    session = make_session(args)
    if args.action == "set":
        return _token_set(args, out, session)
    if args.action == "delete":
        return _token_delete(args, out, session)
    return _token_status(args, out, session)


def _token_set(args: Args, out: Output, session: Session) -> int:
    from bottui.api.tokens import AccessToken, ProjectToken

    base = session.base_url
    store = session.tokens
    account, project = session.scope(args.account, args.project)
    if args.kind == "project" and not project:
        raise UsageError("No project", "a project API token needs --project")
    value = _read_secret(args.kind)
    if args.kind == "personal":
        store.set_personal(base, account, AccessToken(value))
        what = f"personal access token for account {clean(account)}"
    else:
        assert project is not None
        store.set_project(base, account, project, ProjectToken(value))
        what = f"project API token for {clean(account)}/{clean(project)}"
    del value
    if out.as_json:
        out.document({"stored": args.kind, "account": account, "project": project})
    else:
        out.line(f"stored the {what} in the keyring")
    return EXIT_OK


def _token_delete(args: Args, out: Output, session: Session) -> int:
    base = session.base_url
    store = session.tokens
    account, project = session.scope(args.account, args.project)
    if args.kind == "personal":
        deleted = store.delete_personal(base, account)
    else:
        if not project:
            raise UsageError("No project", "a project API token needs --project")
        deleted = store.delete_project(base, account, project)
    if out.as_json:
        out.document({"deleted": deleted, "kind": args.kind})
    else:
        out.line(f"deleted the {args.kind} token" if deleted else f"no {args.kind} token stored")
    return EXIT_OK


def _token_status(args: Args, out: Output, session: Session) -> int:
    base = session.base_url
    store = session.tokens
    rows: list[dict[str, Any]] = []
    account: str | None = args.account or session.settings.account
    project: str | None = args.project or session.settings.project
    accounts: list[str] = [account] if account else []
    projects: list[tuple[str, str]] = [(account, project)] if account and project else []
    inventory = session.inventory if not (account and project) else None
    if inventory is not None:
        for entry in inventory.projects(account):
            if not account:
                accounts.append(entry.account)
            projects.append((entry.account, entry.project))
    for acc in dict.fromkeys(accounts):
        state = store.personal_state(base, acc)
        rows.append({"kind": "personal", "account": acc, "project": None, "state": state.label})
    for acc, proj in dict.fromkeys(projects):
        state = store.project_state(base, acc, proj)
        rows.append({"kind": "project", "account": acc, "project": proj, "state": state.label})
    if out.as_json:
        out.document({"baseUrl": base, "tokens": rows})
    else:
        out.line(f"base URL: {clean(base)}")
        if not rows:
            out.line("no account given: pass --account (and --project), or add projects")
        for row in rows:
            where = show_id(row["account"]) + (
                f"/{show_id(row['project'])}" if row["project"] else ""
            )
            out.line(f"  {row['kind']:<8} {where}: {row['state']}")
    _flush_warnings(session, out)
    return EXIT_OK


def cmd_profile(args: Args, out: Output) -> int:
    """``bottui profile add|list|use|remove``."""
    from bottui.api.urls import check_base_url
    from bottui.store.config import ConfigStore, Profile
    from bottui.store.paths import Locations

    store = ConfigStore(Locations.default())
    if args.action == "add":
        if not args.base_url:
            raise UsageError("No base URL", "profile add needs --base-url URL")
        base_url = check_base_url(args.base_url)
        profile = Profile(
            name=args.name,
            base_url=base_url,
            read_only=args.read_only,
            protected=args.protected,
            account=args.account,
            project=args.project,
        )
        store.add_profile(profile, replace=args.replace)
        config = store.load()
        if config.current is None:
            store.use(args.name)
        if out.as_json:
            out.document({"added": args.name})
        else:
            out.line(f"added profile {clean(args.name)} ({clean(base_url)})")
        return EXIT_OK
    if args.action == "use":
        store.use(args.name)
        out.document({"current": args.name}) if out.as_json else out.line(
            f"current profile: {clean(args.name)}"
        )
        return EXIT_OK
    if args.action == "remove":
        store.remove_profile(args.name)
        out.document({"removed": args.name}) if out.as_json else out.line(
            f"removed profile {clean(args.name)}"
        )
        return EXIT_OK
    config = store.load()
    if out.as_json:
        out.document(
            {
                "current": config.current,
                "profiles": [
                    {
                        "name": p.name,
                        "baseUrl": p.base_url,
                        "readOnly": p.read_only,
                        "protected": p.protected,
                        "account": p.account,
                        "project": p.project,
                    }
                    for p in config.profiles.values()
                ],
            }
        )
        return EXIT_OK
    if not config.profiles:
        out.line("no profiles: bottui profile add NAME --base-url URL")
    for p in config.profiles.values():
        mark = "*" if p.name == config.current else " "
        flags = [f for f, on in (("read-only", p.read_only), ("protected", p.protected)) if on]
        extra = f" [{', '.join(flags)}]" if flags else ""
        out.line(f"{mark} {clean(p.name)}: {clean(p.base_url)}{extra}")
    return EXIT_OK


def cmd_sandbox(args: Args, out: Output) -> int:
    """``bottui sandbox``: serve the emulator until Ctrl-C."""
    from bottui.sandbox.server import serve
    from bottui.sandbox.sockets import BindError

    try:
        serve(args.host, args.port, latency=args.latency)
    except BindError as exc:
        raise UsageError("Cannot serve the sandbox", str(exc)) from None
    return EXIT_OK


def cmd_demo(args: Args, out: Output) -> int:
    """``bottui demo``: the app against the embedded sandbox, isolated."""
    from bottui.tui import gc_pause

    with gc_pause.paused():  # the app resumes it after its first frame
        from bottui.demo import run_demo

        return run_demo()


def cmd_tui(args: Args, out: Output) -> int:
    """No command: the TUI on the saved profile."""
    from bottui.tui import gc_pause

    with gc_pause.paused():  # the app resumes it after its first frame
        from bottui.tui.run import START_DEMO, run_app

        code: int = run_app(args)
    if code == START_DEMO:  # chosen on the first-run welcome
        return cmd_demo(args, out)
    return code


_ASYNC: dict[str, Callable[[Args, Output], Any]] = {
    "limiter": cmd_limiter,
    "revoke": cmd_revoke,
    "thresholds": cmd_thresholds,
    "undo": cmd_undo,
}
_SYNC: dict[str, Callable[[Args, Output], int]] = {
    "token": cmd_token,
    "profile": cmd_profile,
    "inventory": cmd_inventory,
    "journal": cmd_journal,
    "sandbox": cmd_sandbox,
    "demo": cmd_demo,
}


def _flush_warnings(session: Session, out: Output) -> None:
    for warning in session.take_warnings():
        out.message(f"warning: {clean(warning)}")


def run(argv: Sequence[str] | None, out: Output | None = None) -> int:
    """Parse and run one command; return the exit code."""
    words = sys.argv[1:] if argv is None else argv
    output = out or Output("--json" in words)
    try:
        from bottui.ops.argv_text import check_command_line

        check_command_line(words, os.environ)
        args = _parse(argv)
        output.as_json = args.json
        if args.command is None:
            return cmd_tui(args, output)
        if args.command in _ASYNC:
            code: int = asyncio.run(_ASYNC[args.command](args, output))
            return code
        return _SYNC[args.command](args, output)
    except BottuiError as exc:
        output.error(exc.title, exc.details, exc.to_json())
        return exc.exit_code
    except KeyboardInterrupt:
        output.message("interrupted")
        return EXIT_INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    from bottui.closed_pipe import flush_at_exit

    return flush_at_exit(run(argv))


if __name__ == "__main__":
    raise SystemExit(main())
