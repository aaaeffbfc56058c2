"""``bottui profile add|edit|list|use|remove``: the profiles of config.toml.

The checks and the edits are :mod:`bottui.ops.profiles`' (the TUI's first run
uses the same); this module parses nothing and prints what they did.
"""

from __future__ import annotations

import shlex
from typing import Any, Final

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output, UsageError
from bottui.cli.parser import IDS, Args, command, group_of
from bottui.ops import profiles
from bottui.store.config.async_facade import AsyncConfigStore
from bottui.store.config.config_model import Profile
from bottui.store.files import Locations
from bottui.store.store_errors import ProfileExists


async def cmd_profile(args: Args, out: Output) -> int:
    """``bottui profile add|edit|list|use|remove``."""
    store = AsyncConfigStore(Locations.default())
    if args.action == "add":
        if not args.base_url:
            raise UsageError("No base URL", "profile add needs --base-url URL")
        profile = profiles.new_profile(
            args.name,
            args.base_url,
            read_only=args.read_only,
            protected=args.protected,
            account=args.account,
            project=args.project,
            require_reason=args.require_reason,
            store=args.store,
            operator=args.operator,
        )
        try:
            await profiles.add_profile(store, profile, replace=args.replace)
        except ProfileExists as exc:
            # The store's words are for both faces; the CLI names its own flag.
            raise ProfileExists(
                exc.title,
                f"give --replace to replace it (bottui profile add {shlex.quote(args.name)} "
                "--base-url URL --replace), or remove it first: bottui profile remove "
                f"{shlex.quote(args.name)}",
            ) from None
        out.result({"added": args.name}, f"added profile {args.name} ({profile.base_url})")
        return EXIT_OK
    if args.action == "edit":
        return await _edit(args, out, store)
    if args.action == "use":
        await profiles.use_profile(store, args.name)
        out.result({"current": args.name}, f"current profile: {args.name}")
        return EXIT_OK
    if args.action == "remove":
        await profiles.remove_profile(store, args.name)
        out.result({"removed": args.name}, f"removed profile {args.name}")
        return EXIT_OK
    config = await profiles.read_config(store)
    if out.as_json:
        listed = [{"name": p.name, **_json(p)} for p in config.profiles.values()]
        out.document({"current": config.current, "profiles": listed})
        return EXIT_OK
    if not config.profiles:
        out.line("no profiles: bottui profile add NAME --base-url URL")
    for p in config.profiles.values():
        mark = "*" if p.name == config.current else " "
        flags = [f for f, on in (("read-only", p.read_only), ("protected", p.protected)) if on]
        extra = f" [{', '.join(flags)}]" if flags else ""
        out.line(f"{mark} {p.name}: {p.base_url}{extra}")
    return EXIT_OK


async def _edit(args: Args, out: Output, store: AsyncConfigStore) -> int:
    """``bottui profile edit NAME [OPTIONS]``: what is named changes, the rest stays."""

    def flag(on: bool | None, off: bool) -> bool | None:
        if on and off:
            raise UsageError("Contradicting flags", "give a flag or its --no- form, not both")
        return False if off else on

    changes = profiles.ProfileChanges(
        base_url=getattr(args, "base_url", None) or None,
        read_only=flag(getattr(args, "read_only", None) or None, args.no_read_only),
        protected=flag(args.protected, args.no_protected),
        require_reason=flag(args.require_reason, args.no_require_reason),
        store=args.store,
        operator=args.operator,
        account=getattr(args, "account", None),
        project=getattr(args, "project", None),
    )
    profile = await profiles.edit_profile(store, args.name, changes)
    flags = [
        name
        for name, on in (
            ("read-only", profile.read_only),
            ("protected", profile.protected),
            ("require-reason", profile.require_reason),
        )
        if on
    ]
    if out.as_json:
        more = {
            "requireReason": profile.require_reason,
            "store": profile.store,
            "operator": profile.operator,
        }
        out.document({"edited": profile.name, **_json(profile, **more)})
        return EXIT_OK
    out.line(f"profile {profile.name}: {profile.base_url} [{', '.join(flags) or 'no flags'}]")
    out.line(f"  store: {profile.store or 'none'} · operator: {profile.operator or 'not set'}")
    return EXIT_OK


def _json(profile: Profile, **more: Any) -> dict[str, Any]:
    """A profile in ``--json``: its base URL and flags, ``more``, its account and project."""
    return {
        "baseUrl": profile.base_url,
        "readOnly": profile.read_only,
        "protected": profile.protected,
        **more,
        "account": profile.account,
        "project": profile.project,
    }


#: The switches of ``profile add`` and ``profile edit``, with their help.
_FLAGS: Final = {
    "protected": "every change on it needs --yes (or a confirmation)",
    "require-reason": "refuse a change without --reason (the journal says why)",
}


def _add_profile(commands: Any) -> None:
    profile_cmds = group_of(
        commands,
        "profile",
        examples=["bottui profile list", "bottui profile use prod"],
        exits=[0, 2, 130],
    )
    p_add = command(
        profile_cmds,
        "add",
        "add a profile",
        examples=[
            "bottui profile add prod --base-url https://api.example.com --protected",
            f"bottui profile add stage --base-url https://stage.example.com {IDS}",
            "bottui profile add prod --base-url https://api2.example.com --replace",
        ],
        exits=[0, (2, "refused: a profile of that name exists (see --replace), or a bad URL")],
        common={"base_url", "account", "project", "read_only", "json"},
    )
    p_add.add_argument("name", metavar="NAME", help="the new profile's name")
    for flag, words in _FLAGS.items():
        p_add.add_argument(f"--{flag}", action="store_true", help=words)
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
    p_edit = command(
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
    for flag, words in _FLAGS.items():
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
    command(
        profile_cmds,
        "list",
        "list profiles (* marks the current one)",
        examples=["bottui profile list", "bottui profile list --json"],
        exits=[0, 2],
        common={"json"},
    )
    p_use = command(
        profile_cmds,
        "use",
        "make a profile the current one",
        examples=["bottui profile use prod", "bottui profile use stage --json"],
        exits=[0, (2, "refused: no such profile")],
        common={"json"},
    )
    p_use.add_argument("name", metavar="NAME", help="the profile's name")
    p_rm = command(
        profile_cmds,
        "remove",
        "remove a profile",
        examples=["bottui profile remove stage", "bottui profile remove stage --json"],
        exits=[0, (2, "refused: no such profile")],
        common={"json"},
    )
    p_rm.add_argument("name", metavar="NAME", help="the profile's name")


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"profile": _add_profile}
