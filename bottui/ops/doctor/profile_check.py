"""Which profile doctor judges, and where its base URL comes from.

Read before the event loop runs (as every command reads ``config.toml``):
:func:`resolve_profile` gives the settings the other checks use, or the
reason there are none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bottui.api.errors import RefusedError
from bottui.ops.doctor.model import Check, Verdict
from bottui.ops.session import CommonOptions, Settings
from bottui.plaintext import show_id
from bottui.store.config.sync import ConfigStore
from bottui.store.env_tokens import EnvScope, scopes_of
from bottui.store.errors import ConfigError
from bottui.store.paths import Locations

_TITLE: Final = "Profile"


@dataclass(frozen=True)
class ProfileFacts:
    """The resolved settings (``None``: no such profile), where the base URL comes from,
    and why config.toml could not be loaded, if it could not."""

    settings: Settings | None
    source: str
    load_error: str | None = None
    refused: str | None = None
    #: Where each profile's own environment tokens belong (``BOTTUI_API_KEY_<PROFILE>``).
    scopes: tuple[EnvScope, ...] = ()


def resolve_profile(
    locations: Locations, options: CommonOptions, environ: Mapping[str, str]
) -> ProfileFacts:
    """The settings of this run, as a command would resolve them (never raises for the config)."""
    from bottui.store.config.model import Config

    load_error: str | None = None
    try:
        config = ConfigStore(locations).load()
    except ConfigError as exc:
        config, load_error = Config(), str(exc)
    try:
        settings = Settings.resolve(
            config,
            profile=options.profile,
            base_url=options.base_url,
            account=options.account,
            project=options.project,
            read_only=options.read_only,
            environ=environ,
        )
    except RefusedError as exc:
        return ProfileFacts(None, "", load_error, f"{exc.title} ({exc.details})")
    if options.base_url:
        source = "from --base-url"
    elif environ.get("BOTTUI_BASE_URL"):
        source = "from BOTTUI_BASE_URL"
    else:
        source = f"profile {show_id(settings.profile_name or '')}"
    return ProfileFacts(settings, source, load_error, scopes=scopes_of(config))


def check_profile(facts: ProfileFacts) -> Check:
    """The profile in use: its name, base URL, defaults and guards."""
    settings = facts.settings
    if settings is None:
        return Check(
            "profile",
            _TITLE,
            Verdict.PROBLEM,
            facts.refused or "no profile",
            "bottui profile list names them; pass one of those to --profile",
        )
    if not settings.base_url:
        return Check(
            "profile",
            _TITLE,
            Verdict.PROBLEM,
            "no profile and no base URL (no --base-url, no BOTTUI_BASE_URL)",
            "bottui profile add NAME --base-url https://... --account ID --project ID "
            "(or try everything first in bottui demo)",
        )
    name = show_id(settings.profile_name) if settings.profile_name else "(none)"
    scope = "/".join(show_id(part) for part in (settings.account, settings.project) if part)
    guards = [
        word
        for word, on in (("read-only", settings.read_only), ("protected", settings.protected))
        if on
    ]
    detail = f"{name}: base URL {settings.base_url} ({facts.source})"
    if scope:
        detail += f", default {scope}"
    if guards:
        detail += f", {' and '.join(guards)}"
    return Check("profile", _TITLE, Verdict.OK, detail)


__all__ = ["ProfileFacts", "check_profile", "resolve_profile"]
