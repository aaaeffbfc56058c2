"""``bottui profile add|list|use|remove``: the profiles of config.toml.

The checks and the edits are :mod:`bottui.ops.profiles`' (the TUI's first run
uses the same); this module parses nothing and prints what they did.
"""

from __future__ import annotations

import shlex

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError


async def cmd_profile(args: Args, out: Output) -> int:
    """``bottui profile add|list|use|remove``."""
    from bottui.ops import profiles
    from bottui.store.config_async import AsyncConfigStore
    from bottui.store.errors import ProfileExists
    from bottui.store.paths import Locations

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
        if out.as_json:
            out.document({"added": args.name})
        else:
            out.line(f"added profile {args.name} ({profile.base_url})")
        return EXIT_OK
    if args.action == "use":
        await profiles.use_profile(store, args.name)
        out.document({"current": args.name}) if out.as_json else out.line(
            f"current profile: {args.name}"
        )
        return EXIT_OK
    if args.action == "remove":
        await profiles.remove_profile(store, args.name)
        out.document({"removed": args.name}) if out.as_json else out.line(
            f"removed profile {args.name}"
        )
        return EXIT_OK
    config = await profiles.read_config(store)
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
        out.line(f"{mark} {p.name}: {p.base_url}{extra}")
    return EXIT_OK
