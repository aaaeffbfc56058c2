"""``bottui profile add|list|use|remove``: the profiles of config.toml."""

from __future__ import annotations

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError


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
            out.line(f"added profile {args.name} ({base_url})")
        return EXIT_OK
    if args.action == "use":
        store.use(args.name)
        out.document({"current": args.name}) if out.as_json else out.line(
            f"current profile: {args.name}"
        )
        return EXIT_OK
    if args.action == "remove":
        store.remove_profile(args.name)
        out.document({"removed": args.name}) if out.as_json else out.line(
            f"removed profile {args.name}"
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
        out.line(f"{mark} {p.name}: {p.base_url}{extra}")
    return EXIT_OK
