"""``bottui inventory import FILE | export FILE | list``: the profile's known ids.

``import`` is an inventory edit of :mod:`bottui.ops.inventory_edits` (the
TUI's adds and forgets are its others); ``export`` and ``list`` read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from bottui.api.errors import EXIT_OK
from bottui.cli.command_session import command_session
from bottui.cli.output import Output
from bottui.cli.parser import Args, add_overwrite, command, group_of
from bottui.ops.inventory_edits import import_file
from bottui.ops.team_inventory import refresh_shared
from bottui.plaintext import clean, show_id
from bottui.store.inventory.inventory_records import taught_by
from bottui.store.journal.journal_records import number_of


async def cmd_inventory(args: Args, out: Output) -> int:
    """``bottui inventory import FILE | export FILE | list``."""
    async with command_session(args, out) as session:
        inventory = session.inventory_store
        if args.action == "import":
            report = await import_file(session, Path(args.file))
            said = (
                f"imported {args.file}: {report.added} added, "
                f"{report.changed} changed, {report.unchanged} unchanged"
            )
            lines = [said, *(f"  {change}" for change in report.lines)]
            out.result({"file": args.file, **report.to_json()}, lines)
            return EXIT_OK
        if args.action == "export":
            snapshot = await inventory.export_toml(Path(args.file), overwrite=args.overwrite)
            counts = {
                "accounts": len(snapshot.accounts),
                "projects": len(snapshot.projects),
                "limiters": len(snapshot.limiters),
                "dimensions": len(snapshot.dimensions),
            }
            what = ", ".join(f"{n} {name}" for name, n in counts.items())
            out.result({"file": args.file, **counts}, f"exported {what} to {args.file}")
            return EXIT_OK

        await refresh_shared(session)  # what teammates taught, when a team store is configured
        doc = with_teammates(await inventory.to_dict())
        if out.as_json:
            out.document(_numbers(doc))
        else:
            _print_inventory(out, doc)
        return EXIT_OK


def with_teammates(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with ``taught_by`` on each record: the teammate whose change taught it, or null."""
    for key in ("projects", "limiters", "dimensions"):
        for record in doc.get(key, ()):
            source = record.get("source")
            record["taught_by"] = taught_by(source) if isinstance(source, str) else None
    return doc


def _how(record: dict[str, Any], stamp_key: str) -> str:
    """``response, 2026-11-21T03:00:00Z`` or ``from bob's change, 2026-11-21T03:12:00Z``."""
    known_at = str(record[stamp_key] or "")[:19]
    teammate = record.get("taught_by")
    how = f"from {clean(teammate)}'s change" if teammate else clean(record["source"])
    return f"{how}, {known_at}Z"


def _print_inventory(out: Output, doc: dict[str, Any]) -> None:
    def named(ident: str, name: str | None) -> str:
        return show_id(ident) + (f" ({name})" if name else "")

    out.line(f"profile {doc['profile']}")
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
                    f"  ({_how(limiter, 'known_at')})"
                )
            for dim in (d for d in doc["dimensions"] if (d["account"], d["project"]) == key):
                known = dim["block"] is not None and dim["challenge"] is not None
                values = (
                    f"block {dim['block']}, challenge {dim['challenge']}"
                    if known
                    else "thresholds unknown"
                )
                if known and dim.get("taught_by"):
                    values += f"  ({_how(dim, 'known_at')})"
                out.line(f"    dimension {named(dim['id'], dim['name'])}: {values}")


def _numbers(doc: dict[str, Any]) -> dict[str, Any]:
    """The dimensions' thresholds as numbers, as every --json shows them.

    The inventory (and its TOML export) keeps the exact literal text; a
    script reading ``inventory list --json`` gets numbers, like ``thresholds
    set --json`` and the journal's ``request_body`` and ``previous``.
    """
    dims = [
        {**d, "block": number_of(d.get("block")), "challenge": number_of(d.get("challenge"))}
        for d in doc.get("dimensions", [])
    ]
    return {**doc, "dimensions": dims}


def _add_inventory(commands: Any) -> None:
    inv_cmds = group_of(
        commands,
        "inventory",
        examples=["bottui inventory list", "bottui inventory export team.toml"],
        exits=[0, 2, 130],
    )
    inv_import = command(
        inv_cmds,
        "import",
        "merge a TOML inventory file; report what changed",
        examples=["bottui inventory import team.toml", "bottui inventory import team.toml --json"],
        exits=[0, (2, "refused: the file cannot be read or is not a valid inventory"), 130],
        common={"profile", "base_url", "json"},
    )
    inv_import.add_argument("file", metavar="FILE", help="the TOML file to merge")
    inv_export = command(
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
    add_overwrite(inv_export, "replace FILE")
    command(
        inv_cmds,
        "list",
        "show the inventory",
        examples=["bottui inventory list", "bottui inventory list --profile prod --json"],
        exits=[0, 2, 130],
        common={"profile", "base_url", "json"},
    )


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"inventory": _add_inventory}
