"""``bottui token set|status|delete``: tokens in the OS keyring, never their values shown.

The keyring is reached through :mod:`bottui.ops.token_slots`, as the TUI
reaches it: one :class:`~bottui.ops.token_slots.Slot` per token, each call
awaited on the store executor, so a keyring that hangs costs its timeout and no more.
"""

from __future__ import annotations

import getpass
import os
import sys
from typing import Any, Final

from bottui.api.errors import EXIT_OK
from bottui.api.tokens import StorePassword, check_token
from bottui.cli.command_session import command_session
from bottui.cli.output import Output, UsageError
from bottui.cli.parser import IDS, Args, command, group_of
from bottui.cli.store_cmd import profile_of
from bottui.ops.inventory_reads import read_all_projects
from bottui.ops.session import Session
from bottui.ops.team_push import store_target
from bottui.ops.token_slots import Slot, delete_token, keyring_answers, read_states, store_token
from bottui.plaintext import show_id
from bottui.store.keyring_tokens import TokenStore
from bottui.store.store_errors import KeyringUnavailable
from bottui.store.token_sources import EnvTokenAmbiguous


async def cmd_token(args: Args, out: Output) -> int:
    """``bottui token set|status|delete``."""
    if getattr(args, "kind", None) == "store":
        return await _store_password(args, out)
    async with command_session(args, out) as session:
        base = session.base_url
        if args.action == "status":
            return await _token_status(args, out, session, base)
        account, project = session.scope(args.account, args.project)
        if args.kind == "project" and not project:
            raise UsageError("No project", "a project API token needs --project")
        slot = (
            Slot.personal(account)
            if args.kind == "personal"
            else Slot.for_project(account, project or "")
        )
        if args.action == "set":
            await keyring_answers(session.tokens)  # no keyring: said before the prompt
            value = _read_secret(args.kind)
            wrapped = slot.wrap(value)
            # A token that could never be sent is not stored either.
            check_token(wrapped, session.settings.token_encoding)
            await store_token(session.tokens, base, slot, wrapped)
            del value
            where = f"account {account}" if slot.project is None else f"{account}/{project}"
            out.result(
                {"stored": args.kind, "account": account, "project": project},
                f"stored the {slot.label} for {where} in the keyring",
            )
            return EXIT_OK
        deleted, _ = await delete_token(session.tokens, base, slot)
        out.result(
            {"deleted": deleted, "kind": args.kind},
            f"deleted the {args.kind} token" if deleted else f"no {args.kind} token stored",
        )
        return EXIT_OK


async def _store_password(args: Args, out: Output) -> int:
    """``bottui token set|delete store``: the team store's password, kept in the keyring."""
    target = store_target(profile_of(args), os.environ)
    tokens = TokenStore()
    if args.action == "set":
        await keyring_answers(tokens)  # no keyring: said before the prompt
        value = _read_secret("store")
        await tokens.set_store_password_async(target.keyring_username, StorePassword(value))
        del value
        out.result(
            {"stored": "store", "where": target.where},
            f"stored the password of {target.where} in the keyring",
        )
        return EXIT_OK
    deleted = await tokens.delete_store_password_async(target.keyring_username)
    out.result(
        {"deleted": deleted, "kind": "store"},
        "deleted the store password" if deleted else "no store password stored",
    )
    return EXIT_OK


def _read_secret(kind: str) -> str:
    label = {"personal": "Personal access token", "store": "Team store password"}.get(
        kind, "Project API token"
    )
    if sys.stdin.isatty():
        value = getpass.getpass(f"{label} (input hidden): ")
    else:
        value = sys.stdin.readline()
    value = value.strip()
    if not value:
        raise UsageError("No token given", "type it at the prompt or pipe it on stdin")
    return value


async def _token_status(args: Args, out: Output, session: Session, base: str) -> int:
    account: str | None = args.account or session.settings.account
    project: str | None = args.project or session.settings.project
    accounts: list[str] = [account] if account else []
    projects: list[tuple[str, str]] = [(account, project)] if account and project else []
    if not (account and project):
        for entry in await read_all_projects(session, account):
            if not account:
                accounts.append(entry.account)
            projects.append((entry.account, entry.project))
    slots = [Slot.personal(acc) for acc in dict.fromkeys(accounts)]
    slots += [Slot.for_project(acc, proj) for acc, proj in dict.fromkeys(projects)]
    readings = await read_states(session.tokens, base, slots)
    rows: list[dict[str, Any]] = []
    failure: KeyringUnavailable | None = None
    for slot in slots:
        state = readings[slot]
        if isinstance(state, EnvTokenAmbiguous):
            # Two variables claim it: refused for this slot alone, said by name.
            label = f"refused: {state.title}"
            failure = failure or state
        elif isinstance(state, KeyringUnavailable):
            # Every slot is still listed: what the environment holds is known without it.
            label = "unknown: the keyring is unavailable"
            failure = failure or state
        else:
            label = state.label
        rows.append(
            {
                "kind": slot.kind,
                "account": slot.account,
                "project": slot.project,
                "state": label,
            }
        )
    lines = [f"base URL: {base}"]
    if not rows:
        lines.append("no account given: pass --account (and --project), or add projects")
    for row in rows:
        where = show_id(row["account"]) + (f"/{show_id(row['project'])}" if row["project"] else "")
        lines.append(f"  {row['kind']:<8} {where}: {row['state']}")
    out.result({"baseUrl": base, "tokens": rows}, lines)
    if failure is not None:
        # Exit 3 after the list: a token of this list may be unusable.
        out.message(f"error: {failure.title}" + (f"\n{failure.details}" if failure.details else ""))
        return failure.exit_code
    return EXIT_OK


def _add_token(commands: Any) -> None:
    token_cmds = group_of(
        commands,
        "token",
        examples=["bottui token status", "bottui token set personal --account acme"],
        exits=[0, 2, 3, 130],
    )
    kinds = ["personal", "project", "store"]
    kind_help = "personal (access token), project (API token) or store (the team store's password)"
    token_set = command(
        token_cmds,
        "set",
        "store a token read from a hidden prompt or stdin",
        examples=[
            "bottui token set personal --account acme",
            f"bottui token set project {IDS} < token.txt",
            "bottui token set store --profile prod",
        ],
        exits=[0, 2, (3, "the keyring is absent, locked or not answering"), 130],
        common={"profile", "base_url", "account", "project", "json"},
    )
    token_set.add_argument("kind", choices=kinds, metavar="KIND", help=kind_help)
    command(
        token_cmds,
        "status",
        "which tokens are stored (never their values)",
        examples=["bottui token status", f"bottui token status {IDS} --json"],
        exits=[0, 2, (3, "the keyring is absent, locked or not answering"), 130],
        common={"profile", "base_url", "account", "project", "json"},
    )
    token_del = command(
        token_cmds,
        "delete",
        "delete a stored token",
        examples=[
            f"bottui token delete project {IDS}",
            "bottui token delete personal --account acme",
        ],
        exits=[0, 2, (3, "the keyring is absent, locked or not answering"), 130],
        common={"profile", "base_url", "account", "project", "json"},
    )
    token_del.add_argument("kind", choices=kinds, metavar="KIND", help=kind_help)


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"token": _add_token}
