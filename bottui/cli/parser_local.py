"""The commands on local state and tools: ``inventory``, ``journal``, ``token``, ``store``,
``profile``, ``config``, ``sandbox``, ``demo`` and ``help``.

Part of :func:`bottui.cli.parser.build_parser`; imported only when it runs.
"""

from __future__ import annotations

from typing import Any

from bottui.cli.help_text import command as cmd
from bottui.cli.help_text import group_of
from bottui.cli.parser_options import entry_id, positive_int

#: ``bottui sandbox --help``: faults are injected over HTTP while it serves
#: (every name of ``bottui.sandbox.faults.WIRE_NAMES``; a test checks it).
SANDBOX_FAULTS = """

Fault injection, while it serves (no auth; the sandbox's own endpoints):
  GET  /_sandbox/faults   the fault settings now
  PUT  /_sandbox/faults   change some, as a JSON object; for example
    curl -X PUT http://127.0.0.1:8765/_sandbox/faults -d '{"failNext": 2, "errorStatus": 503}'
  failNext, rateLimitNext (with retryAfter), nonJsonNext: answer the next N
    requests with errorStatus (a 5xx), a 429, or an HTML page
  dropNext, dropMode ("after": applied, then the answer is cut; "before")
  errorRate (0..1, with seed), latency (seconds), hold (true: wait until false)
  hostile, hostileStatus, hostileBody: hostile text, error statuses or bodies
GET /_sandbox/stats, POST /_sandbox/reset: request counters."""


def add_local_commands(commands: Any) -> None:
    """Add the commands on local state and tools to ``commands`` (a subparsers action)."""
    ids = "--account acme --project shop-prod"

    inv_cmds = group_of(
        commands,
        "inventory",
        "the profile's known accounts, projects, rate limiters and dimensions",
        examples=["bottui inventory list", "bottui inventory export team.toml"],
        exits=[0, 2, 130],
    )
    inv_import = cmd(
        inv_cmds,
        "import",
        "merge a TOML inventory file; report what changed",
        examples=["bottui inventory import team.toml", "bottui inventory import team.toml --json"],
        exits=[0, (2, "refused: the file cannot be read or is not a valid inventory"), 130],
        common={"profile", "base_url", "json"},
    )
    inv_import.add_argument("file", metavar="FILE", help="the TOML file to merge")
    inv_export = cmd(
        inv_cmds,
        "export",
        "write the inventory to a TOML file",
        examples=[
            "bottui inventory export team.toml",
            "bottui inventory export --profile prod p.toml",
        ],
        exits=[0, (2, "refused: the file cannot be written"), 130],
        common={"profile", "base_url", "json"},
    )
    inv_export.add_argument("file", metavar="FILE", help="the TOML file to write")
    inv_export.add_argument(
        "--overwrite",
        action="store_true",
        help="replace FILE if it exists (never a symbolic link)",
    )
    cmd(
        inv_cmds,
        "list",
        "show the inventory",
        examples=["bottui inventory list", "bottui inventory list --profile prod --json"],
        exits=[0, 2, 130],
        common={"profile", "base_url", "json"},
    )

    journal = cmd(
        commands,
        "journal",
        "the audit journal of every change, newest first, 50 at a time",
        examples=[
            "bottui journal --project shop-prod --outcome failed",
            "bottui journal --since 2026-11-24T09:00 --all --jsonl",
            "bottui journal --follow",
        ],
        exits=[0, (2, "refused: invalid filters, or the journal cannot be read"), 3, 130],
        common={"profile", "account", "project", "json"},
    )
    journal.add_argument(
        "--since",
        metavar="TIME",
        help="entries started at or after: ISO 8601 (UTC unless an offset is given) or a "
        "duration ago (2h, 30m, 1d, 1h30m), as the Journal screen's filter",
    )
    journal.add_argument("--until", metavar="TIME", help="entries started before (same forms)")
    journal.add_argument("--unfinished", action="store_true", help="only entries with no outcome")
    journal.add_argument(
        "--operation",
        metavar="OPERATION",
        help="only this operation: limiter, thresholds or revoke",
    )
    journal.add_argument(
        "--outcome", metavar="OUTCOME", help="ok, api-error, ... or succeeded, failed, unknown"
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
        "--run", dest="run_id", type=entry_id, metavar="RUN_ID", help="only one bulk run's entries"
    )
    journal.add_argument(
        "--limit",
        type=positive_int,
        metavar="N",
        help="at most N entries (default 50, at most 10000)",
    )
    journal.add_argument(
        "--before",
        type=entry_id,
        metavar="ENTRY_ID",
        help="only entries older than #ENTRY_ID: the next page",
    )
    journal.add_argument("--all", action="store_true", help="every entry that matches, streamed")
    journal.add_argument("--jsonl", action="store_true", help="JSON Lines: one entry per line")
    journal.add_argument(
        "--follow",
        action="store_true",
        help="after the newest page, print new entries as they arrive (Ctrl-C ends)",
    )
    journal.add_argument(
        "--export", metavar="FILE", help="write the entries to FILE (all unless --limit)"
    )
    journal.add_argument(
        "--format", choices=["jsonl", "csv"], help="export format (default: from FILE's extension)"
    )
    journal.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the --export FILE if it exists (never a symbolic link)",
    )

    token_cmds = group_of(
        commands,
        "token",
        "store, inspect or delete tokens (OS keyring)",
        examples=["bottui token status", "bottui token set personal --account acme"],
        exits=[0, 2, 3, 130],
    )
    kinds = ["personal", "project", "store"]
    kind_help = "personal (access token), project (API token) or store (the team store's password)"
    token_set = cmd(
        token_cmds,
        "set",
        "store a token read from a hidden prompt or stdin",
        examples=[
            "bottui token set personal --account acme",
            f"bottui token set project {ids} < token.txt",
            "bottui token set store --profile prod",
        ],
        exits=[0, 2, (3, "the keyring is absent, locked or not answering"), 130],
        common={"profile", "base_url", "account", "project", "json"},
    )
    token_set.add_argument("kind", choices=kinds, metavar="KIND", help=kind_help)
    cmd(
        token_cmds,
        "status",
        "which tokens are stored (never their values)",
        examples=["bottui token status", f"bottui token status {ids} --json"],
        exits=[0, 2, (3, "the keyring is absent, locked or not answering"), 130],
        common={"profile", "base_url", "account", "project", "json"},
    )
    token_del = cmd(
        token_cmds,
        "delete",
        "delete a stored token",
        examples=[
            f"bottui token delete project {ids}",
            "bottui token delete personal --account acme",
        ],
        exits=[0, 2, (3, "the keyring is absent, locked or not answering"), 130],
        common={"profile", "base_url", "account", "project", "json"},
    )
    token_del.add_argument("kind", choices=kinds, metavar="KIND", help=kind_help)

    store_examples = ["bottui store status --profile prod", "bottui store migrate --profile prod"]
    store_cmds = group_of(
        commands,
        "store",
        "the team store (PostgreSQL): schema and state",
        examples=store_examples,
        exits=[0, 2, 3, 130],
    )
    for name, purpose, examples in (
        ("migrate", "create or upgrade the shared schema (idempotent)", store_examples[1:]),
        (
            "status",
            "where the store is, its schema version, what waits to be shared",
            store_examples[:1],
        ),
        (
            "sync",
            "push the journal entries not yet shared, now",
            ["bottui store sync --profile prod"],
        ),
    ):
        cmd(
            store_cmds,
            name,
            purpose,
            examples=[*examples, f"bottui store {name} --json"],
            exits=[0, (2, "refused: no store configured, or unreachable"), 3, 130],
            common={"profile", "json"},
        )
    store_cmds.choices["sync"].add_argument(
        "--backfill",
        action="store_true",
        help="also share the history written before the store was configured: the "
        "entries of the profile's base URL, account and project only",
    )

    profile_cmds = group_of(
        commands,
        "profile",
        "manage profiles (config.toml)",
        examples=["bottui profile list", "bottui profile use prod"],
        exits=[0, 2, 130],
    )
    p_add = cmd(
        profile_cmds,
        "add",
        "add a profile",
        examples=[
            "bottui profile add prod --base-url https://api.example.com --protected",
            f"bottui profile add stage --base-url https://stage.example.com {ids}",
            "bottui profile add prod --base-url https://api2.example.com --replace",
        ],
        exits=[0, (2, "refused: a profile of that name exists (see --replace), or a bad URL")],
        common={"base_url", "account", "project", "read_only", "json"},
    )
    p_add.add_argument("name", metavar="NAME", help="the new profile's name")
    p_add.add_argument(
        "--protected",
        action="store_true",
        help="every change on it needs --yes (or a confirmation)",
    )
    p_add.add_argument(
        "--require-reason",
        action="store_true",
        help="refuse a change without --reason (the journal says why)",
    )
    p_add.add_argument(
        "--store",
        metavar="URL",
        default="",
        help="the team store: postgresql://user@host/db, no password (default: none)",
    )
    p_add.add_argument(
        "--operator",
        metavar="NAME",
        default="",
        help="who makes this profile's changes, as journaled (default: the config's or $USER)",
    )
    p_add.add_argument("--replace", action="store_true", help="replace an existing profile")
    p_edit = cmd(
        profile_cmds,
        "edit",
        "change some options of a profile; the others stay",
        examples=[
            "bottui profile edit prod --protected --require-reason",
            "bottui profile edit stage --store postgresql://bottui@db/team --operator alice",
            "bottui profile edit prod --no-protected --store ''",
        ],
        exits=[0, (2, "refused: no such profile, or a bad value")],
        common={"base_url", "account", "project", "read_only", "json"},
    )
    p_edit.add_argument("name", metavar="NAME", help="the profile's name (it cannot change)")
    for flag, words in (
        ("protected", "every change on it needs --yes (or a confirmation)"),
        ("require-reason", "refuse a change without --reason"),
    ):
        p_edit.add_argument(f"--{flag}", action="store_const", const=True, default=None, help=words)
    for flag in ("read-only", "protected", "require-reason"):
        p_edit.add_argument(
            f"--no-{flag}",
            action="store_true",
            help=f"turn --{flag} off",
        )
    p_edit.add_argument(
        "--store", metavar="URL", default=None, help="the team store ('' removes it)"
    )
    p_edit.add_argument(
        "--operator", metavar="NAME", default=None, help="who is journaled ('' removes it)"
    )
    cmd(
        profile_cmds,
        "list",
        "list profiles (* marks the current one)",
        examples=["bottui profile list", "bottui profile list --json"],
        exits=[0, 2],
        common={"json"},
    )
    p_use = cmd(
        profile_cmds,
        "use",
        "make a profile the current one",
        examples=["bottui profile use prod", "bottui profile use stage --json"],
        exits=[0, (2, "refused: no such profile")],
        common={"json"},
    )
    p_use.add_argument("name", metavar="NAME", help="the profile's name")
    p_rm = cmd(
        profile_cmds,
        "remove",
        "remove a profile",
        examples=["bottui profile remove stage", "bottui profile remove stage --json"],
        exits=[0, (2, "refused: no such profile")],
        common={"json"},
    )
    p_rm.add_argument("name", metavar="NAME", help="the profile's name")

    config_cmds = group_of(
        commands,
        "config",
        "check config.toml",
        examples=["bottui config check", "bottui config check --json"],
        exits=[0, 2],
    )
    cmd(
        config_cmds,
        "check",
        "every unknown key, wrong value and keymap mistake, by line",
        examples=["bottui config check", "bottui config check --json"],
        exits=[(0, "no problems, or no config file"), (2, "problems found (each printed)")],
        common={"json"},
    )

    sandbox = cmd(
        commands,
        "sandbox",
        "serve the sandbox emulator of the API (prints its URL and demo tokens)",
        examples=["bottui sandbox", "bottui sandbox --port 9000 --latency 0.2"],
        exits=[0, (2, "refused: the address is in use or not allowed"), 130],
    )
    sandbox.epilog = SANDBOX_FAULTS.strip("\n") + "\n\n" + (sandbox.epilog or "")
    sandbox.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default %(default)s)"
    )
    sandbox.add_argument(
        "--port", type=int, default=8765, help="port to listen on (default %(default)s)"
    )
    sandbox.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="added to every request (default %(default)s)",
    )

    demo = cmd(
        commands,
        "demo",
        "run bottui against the built-in sandbox, isolated from your config and keyring",
        examples=["bottui demo", "bottui demo --team"],
        exits=[0, (2, "refused: --team without its extras"), 130],
    )
    demo.add_argument(
        "--team",
        action="store_true",
        help="team mode: a throwaway PostgreSQL and a scripted teammate whose changes "
        "arrive live (pip install 'bottui[demo]')",
    )

    help_cmd = cmd(
        commands,
        "help",
        "explain a topic (exit codes, tokens, ...) or a command",
        examples=["bottui help", "bottui help exit-codes", "bottui help revoke"],
        exits=[0, (2, "no such topic or command (the closest is suggested)")],
        common={"json"},
    )
    help_cmd.add_argument(
        "topic", nargs="?", metavar="TOPIC", help="a topic or a command (default: list the topics)"
    )
