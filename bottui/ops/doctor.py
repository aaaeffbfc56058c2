"""``bottui doctor``: one check per area, each with a verdict and a fix, run at once. No UI here.

Versions, the profile, config and keymap, the keyring, the tokens of each
project, the API at the base URL, the team store; the terminal and tmux
(TERM, colours, tmux's options, the OSC 52 clipboard:
:func:`~bottui.ops.tmux_options.read_tmux` asks the tmux server once, the
checks judge what it and the environment say).
Each check gives a :class:`Verdict`, what it found, and how to fix it; only
a :attr:`Verdict.PROBLEM` means something needed does not work.

:func:`prepare` reads what a command reads before its event loop (config.toml,
the profile); :func:`run_checks` then runs the checks concurrently. Each
check has a budget: one that overruns it (a keyring, a network or a tmux
server that does not answer) becomes a problem saying so, and the others are
not held up, so the doctor ends in seconds even with a dead network. The
keyring, the API and the team store carry their own shorter timeouts; the
budget is the backstop.
"""

from __future__ import annotations

import asyncio
import enum
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Final, TypeVar

import msgspec

import bottui
from bottui import __version__
from bottui.api.client import ProbeAnswer, accepts_connections, probe_api
from bottui.api.errors import BottuiError, DeadlineExceeded, RefusedError
from bottui.api.tokens import TOKEN_ENV
from bottui.ops.config_checks import (
    CheckedFiles,
    FileProblem,
    KnownBinding,
    config_file_problems,
    keymap_problems,
)
from bottui.ops.inventory_reads import read_all_projects
from bottui.ops.session import CommonOptions, Session, Settings, settings_from_options
from bottui.ops.team_push import TeamSync, open_team_store_url
from bottui.ops.tmux_options import TmuxFacts, inside_tmux, read_tmux
from bottui.ops.token_slots import Reading, Slot, read_states
from bottui.plaintext import show_id
from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import Config
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenState, TokenStore, probe_keyring
from bottui.store.store_errors import ConfigError, KeyringUnavailable, StoreError
from bottui.store.team.outbox import Scope
from bottui.store.token_sources import EnvScope, EnvTokenAmbiguous, scopes_of, unmatched

# A doctor check's result: an id, a verdict, what was found and how to fix it.


class Verdict(enum.Enum):
    """How one check came out. Only :attr:`PROBLEM` makes ``bottui doctor`` fail."""

    OK = "ok"
    WARNING = "warning"
    PROBLEM = "problem"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value


class Check(msgspec.Struct, frozen=True):
    """One check's result.

    ``detail`` may hold several lines (the tokens of each project); ``fix`` is
    empty when there is nothing to do. Both are untrusted text (they quote
    environment variables, ids, server messages): the face cleans them.
    """

    id: str
    title: str
    verdict: Verdict
    detail: str
    fix: str = ""


# Python and bottui: which versions run, and from where.


#: The oldest Python bottui supports (pyproject's requires-python).
PYTHON_FLOOR: Final = (3, 11)


_versions: Final = partial(Check, "versions", "Python and bottui")


def check_versions(version_info: tuple[int, ...] | None = None) -> Check:
    """Python (against the floor) and bottui's own version and location."""
    info = tuple(sys.version_info[:3]) if version_info is None else version_info
    python = ".".join(str(part) for part in info)
    where = bottui.__file__ or "?"
    detail = f"Python {python} ({sys.executable}), bottui {__version__} ({where})"
    if info[:2] < PYTHON_FLOOR:
        floor = ".".join(str(part) for part in PYTHON_FLOOR)
        return _versions(
            Verdict.PROBLEM,
            f"{detail}: bottui needs Python {floor} or newer",
            f"install bottui under Python {floor}+ (pipx install --python python3.12 bottui)",
        )
    return _versions(Verdict.OK, detail)


# config.toml and its keymap: every unknown key, wrong value and keymap mistake.
#
# The same findings as ``bottui config check`` on config.toml
# (:func:`bottui.ops.config_checks.config_file_problems` and
# :func:`~bottui.ops.config_checks.keymap_problems`), one line each with its line
# number. The TUI's bindings come from the caller: ops cannot import the TUI.


_config: Final = partial(Check, "config", "Config and keymap")

#: Problems listed one per line; more are counted.
SHOWN_PROBLEMS: Final = 10


def check_config(
    locations: Locations, bindings: Iterable[KnownBinding], load_error: str | None = None
) -> Check:
    """Check config.toml (``bottui config check``'s findings on it, summarised).

    A file bottui cannot load (``load_error``: not TOML, a value of the wrong
    type) stops every command that reads it: a problem. Unknown keys and
    keymap mistakes are ignored with a warning at start: a warning here too.
    """
    files = CheckedFiles(locations)
    path = locations.config_file
    found = files.config
    if found is None:
        return _config(
            Verdict.SKIPPED,
            f"{path}: no config file yet, defaults apply",
            "bottui profile add NAME --base-url URL creates it",
        )
    problems = config_file_problems(files) + keymap_problems(files, bindings)
    problems.sort(key=lambda p: p.line or 0)
    if load_error is not None and not problems:
        problems.append(FileProblem(path, None, load_error))
    keys = len(found.keymap)
    if not problems:
        return _config(
            Verdict.OK,
            f"{path}: valid ({keys} keymap entr{'y' if keys == 1 else 'ies'})",
        )
    lines = [f"line {p.line}: {p.message}" if p.line else p.message for p in problems]
    if len(lines) > SHOWN_PROBLEMS:
        lines = [*lines[:SHOWN_PROBLEMS], f"... and {len(lines) - SHOWN_PROBLEMS} more"]
    count = f"{len(problems)} mistake{'s' if len(problems) != 1 else ''}"
    if load_error is not None:
        return _config(
            Verdict.PROBLEM,
            "\n".join([f"{path}: cannot be loaded, {count}", *lines]),
            "fix it (bottui config check lists each with its line), or move it aside",
        )
    return _config(
        Verdict.WARNING,
        "\n".join([f"{path}: {count}, ignored with a warning at start", *lines]),
        "bottui config check lists each with its line; fix them, or move the file aside",
    )


# Which profile doctor judges, and where its base URL comes from.
#
# Read before the event loop runs (as every command reads ``config.toml``):
# :func:`resolve_profile` gives the settings the other checks use, or the
# reason there are none.


_profile: Final = partial(Check, "profile", "Profile")


class ProfileFacts(msgspec.Struct, frozen=True):
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
    load_error: str | None = None
    try:
        config = ConfigStore(locations).load()
    except ConfigError as exc:
        config, load_error = Config(), str(exc)
    try:
        settings = settings_from_options(config, options, environ)
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
        return _profile(
            Verdict.PROBLEM,
            facts.refused or "no profile",
            "bottui profile list names them; pass one of those to --profile",
        )
    if not settings.base_url:
        return _profile(
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
    return _profile(Verdict.OK, detail)


# The keyring: which backend keyring chose, and whether it answers in time.


_FIX = (
    f"set {TOKEN_ENV['personal']} and {TOKEN_ENV['project']} in the environment "
    "(they win over the keyring), or run under a Secret Service, or choose a backend: "
    "keyring --list-backends, PYTHON_KEYRING_BACKEND"
)


_keyring: Final = partial(Check, "keyring", "Keyring")


async def check_keyring(tokens: TokenStore, environ: Mapping[str, str]) -> Check:
    """Probe the keyring once; a failure is a problem unless the environment holds both tokens."""
    report = await probe_keyring(tokens)
    backend = report.backend or "unknown (it could not be named in time)"
    if report.failure is None:
        return _keyring(Verdict.OK, f"{backend} answers")
    reason = report.failure.details.split("\n", 1)[0]
    detail = f"{report.failure.title}: {reason} (backend: {backend})"
    if all(environ.get(name, "").strip() for name in TOKEN_ENV.values()):
        return _keyring(
            Verdict.WARNING,
            f"{detail}; not needed while both tokens are in the environment",
            "to keep tokens in a keyring instead: run under a Secret Service, or choose a "
            "backend: keyring --list-backends, PYTHON_KEYRING_BACKEND",
        )
    return _keyring(
        Verdict.PROBLEM,
        f"{detail}; tokens can be neither stored nor read",
        _FIX,
    )


# The tokens each known project needs: stored, from the environment, or missing.
#
# A project needs two: the personal access token of its account (revocation,
# thresholds) and its own project API token (rate limiters). The projects are
# the profile's default one and those the inventory knows. Only where a token
# comes from is shown, never a token.
#
# Verdicts: every token there, ok; some missing, a warning (a command that
# needs one says so, exit 3; not every project needs both); none usable at
# all, a problem (nothing could be changed); a keyring that cannot tell, a
# problem (the keyring check says why). A token from ``BOTTUI_API_KEY`` (or
# ``BOTTUI_ACCESS_TOKEN``) is not tied to a project (an account): it is shown
# as such, and with several projects known that is a warning (it cannot be
# every project's; ``BOTTUI_API_KEY_<PROFILE>`` ties one per profile), as is a
# per-profile variable that names no profile able to use it.


#: Projects listed one per line; more are counted.
SHOWN_PROJECTS: Final = 20
_tokens: Final = partial(Check, "tokens", "Tokens")


async def check_tokens(
    tokens: TokenStore,
    base_url: str,
    projects: Sequence[tuple[str, str]],
    environ: Mapping[str, str],
    scopes: Sequence[EnvScope] = (),
) -> Check:
    """The state of every slot the ``(account, project)`` pairs need, at ``base_url``.

    A slot the environment fills is read without asking the keyring
    (:func:`~bottui.ops.token_slots.read_states`): a keyring that fails must
    not hide it.
    """
    if not projects:
        return _tokens(
            Verdict.SKIPPED,
            "no project known yet (neither the profile nor the inventory names one)",
            "set a default: bottui profile add NAME --base-url URL --account ID --project ID "
            "--replace, or fetch the projects in the TUI",
        )
    slots: list[Slot] = []
    for account, project in projects:
        slots += [Slot.personal(account), Slot.for_project(account, project)]
    readings = await read_states(tokens, base_url, slots)
    found = [readings[slot] for slot in slots]  # two per project, in order
    missing = found.count(TokenState.MISSING)
    refused = sum(isinstance(r, EnvTokenAmbiguous) for r in found)
    unknown = sum(isinstance(r, KeyringUnavailable) for r in found) - refused  # one is the other
    usable = sum(isinstance(r, TokenState) and r.usable for r in found)
    untied = found[1::2].count(TokenState.ENVIRONMENT_ANY_PROJECT)
    lines = [
        f"{show_id(account)}/{show_id(project)}: personal access token "
        f"{_where(personal, 'personal')}, project API token {_where(own, 'project')}"
        for (account, project), personal, own in zip(
            projects[:SHOWN_PROJECTS], found[0::2], found[1::2], strict=False
        )
    ]
    if len(projects) > SHOWN_PROJECTS:
        lines.append(f"... and {len(projects) - SHOWN_PROJECTS} more projects")
    head = f"{len(projects)} project{'s' if len(projects) != 1 else ''} known"
    stray = unmatched(environ, scopes)
    if stray:
        lines.append(
            f"set but given to no project: {', '.join(stray)} (no profile of that name in "
            "[A-Za-z0-9_] with the account and project it needs)"
        )
    detail = "\n".join([head, *lines])
    if unknown:
        return _tokens(
            Verdict.PROBLEM,
            detail,
            "the keyring cannot tell (see the keyring check); tokens in the environment still work",
        )
    if refused:
        return _tokens(
            Verdict.PROBLEM,
            detail,
            "two environment variables claim one token: unset all but one (never guessed)",
        )
    if not usable:
        return _tokens(
            Verdict.PROBLEM,
            detail + "\nno token at all: nothing can be changed",
            "bottui token set personal --account ID; bottui token set project --account ID "
            "--project ID (or BOTTUI_ACCESS_TOKEN / BOTTUI_API_KEY)",
        )
    if (untied and len(projects) > 1) or stray:
        return _tokens(
            Verdict.WARNING,
            detail,
            f"{TOKEN_ENV['project']} is one token for whichever project is asked: it can be only "
            f"one project's. Give each profile its own ({TOKEN_ENV['project']}_<PROFILE>, a "
            "profile name of [A-Za-z0-9_]), or keep them in the keyring"
            if untied and len(projects) > 1
            else "check the variables' names: BOTTUI_API_KEY_<PROFILE> with the profile's name "
            "in upper case",
        )
    if missing:
        return _tokens(
            Verdict.WARNING,
            detail,
            "store the missing ones: bottui token set personal|project --account ID "
            "[--project ID]; bottui token status lists every one",
        )
    return _tokens(Verdict.OK, detail)


def _where(reading: Reading, kind: str) -> str:
    if isinstance(reading, EnvTokenAmbiguous):
        return f"refused ({reading.title})"
    if isinstance(reading, KeyringUnavailable):
        return "unknown (keyring not answering)"
    if reading is TokenState.ENVIRONMENT:
        return f"from environment ({TOKEN_ENV[kind]}_<PROFILE>)"
    if reading.from_environment:
        return f"{reading.label} ({TOKEN_ENV[kind]})"
    return reading.label


# The profile's base URL: reachable, TLS valid, and answering like the API.
#
# One probe (:func:`bottui.api.client.probe_api`): no token, the body ``{}``, made-up ids,
# so nothing can change. The API refuses it with its error object
# (``message``, ``code``, ``type``). What else can come back, and what it means:
#
# * a 2xx: something accepted a request with no credential and no valid body.
#   That is not how the API answers: a red flag (a wrong URL, a proxy that
#   answers everything, a mock), and no token should be sent there;
# * a 3xx: a redirect (to a login page, or http to https): not the API's path;
# * an error status without the error object (an HTML page, a gateway's text):
#   something else answers at this URL;
# * no answer: refused, unknown host, a certificate that is not valid, timed out.
#   A probe that timed out says so and what it waited for; it is a warning
#   when the host still accepts a connection (a busy machine, a slow server),
#   a problem only when it cannot be reached at all.
#
# When the API answers with an authentication error (401, as it should to a
# request without a token), the check names the profile's ``token_encoding``
# once: the real service documents the ``X-Api-Key`` value as the
# Base64-encoded token in places, and a token pasted as its console shows it
# may then get the same 401 (:mod:`bottui.api.tokens`).


_api: Final = partial(Check, "api", "API at the base URL")


_TLS_WORDS: Final = ("certificate", "ssl", "tls", "hostname mismatch")


async def check_api(
    base_url: str, *, timeout: float, source: str, token_encoding: str = "raw"
) -> Check:
    """Probe ``base_url`` (``source``: where it came from, a flag, the environment, a profile).

    Without a base URL there is nothing to probe: the caller skips the check.
    """
    try:
        answer = await probe_api(base_url, timeout=timeout)
    except BottuiError as exc:
        return _api(
            Verdict.PROBLEM,
            f"{base_url} ({source}) is refused before sending: {exc}",
            "fix the base URL: https://host[:port] (plain http only to this machine)",
        )
    if isinstance(answer.failure, DeadlineExceeded):
        connects = await accepts_connections(base_url, timeout=min(timeout, 1.0))
        return _timed_out(base_url, source, answer, timeout, connects=connects)
    return _judge(base_url, source, answer, token_encoding)


def _timed_out(
    base_url: str, source: str, answer: ProbeAnswer, timeout: float, *, connects: bool
) -> Check:
    """The probe got no answer in time: slow (it connects) or unreachable (it does not)."""
    waited = (
        f"{base_url} ({source}): timed out after {timeout:g} s waiting for the answer to "
        f"one probe request (POST {answer.url})"
    )
    if connects:
        return _api(
            Verdict.WARNING,
            f"{waited}; the server accepts connections, so it is reachable but slow "
            "(a busy machine, or a proxy holding the request)",
            "run bottui doctor again; if it stays slow, commands will hit their deadline too",
        )
    return _api(
        Verdict.PROBLEM,
        f"{waited}; and no connection could be opened to it: not reachable",
        "check the base URL, the network and any proxy or firewall on the way",
    )


def _encoding_note(token_encoding: str) -> str:
    """The one sentence about ``token_encoding`` said beside an authentication error."""
    if token_encoding == "base64":
        return (
            '; tokens are sent Base64-encoded (token_encoding = "base64"): if commands get '
            '401, try token_encoding = "raw" (the contract\'s form)'
        )
    return (
        '; tokens are sent as they are (token_encoding = "raw"): if commands get 401 with a '
        'token pasted from the service\'s console, set token_encoding = "base64" in the '
        "profile (the real service documents the header as the Base64-encoded token)"
    )


def _judge(base_url: str, source: str, answer: ProbeAnswer, token_encoding: str) -> Check:
    where = f"{base_url} ({source})"
    secure = base_url.lower().startswith("https://")
    transport = "TLS valid" if secure else "plain HTTP (loopback)"
    if answer.failure is not None:
        text = str(answer.failure)
        tls = secure and any(word in text.lower() for word in _TLS_WORDS)
        return _api(
            Verdict.PROBLEM,
            f"{where}: {'TLS not valid: ' if tls else 'not reachable: '}{text}",
            "the server's certificate must be valid for this host name and trusted here "
            "(SSL_CERT_FILE names a private CA bundle)"
            if tls
            else "check the base URL, the network and any proxy; a timeout may be a firewall",
        )
    status = answer.status or 0
    if 200 <= status < 300:
        return _api(
            Verdict.PROBLEM,
            f"{where}: answered HTTP {status} to a request with no token and no valid body; "
            "the API refuses that, so this is not the API (or something in front accepts "
            "anything): a red flag",
            "do not send tokens there until you know what answers; check the base URL",
        )
    if 300 <= status < 400:
        return _api(
            Verdict.PROBLEM,
            f"{where}: answered with a redirect (HTTP {status}), not the API's error object",
            "use the URL the service's documentation gives (https, no login page in between)",
        )
    if answer.complete_error_object and answer.error is not None:
        err = answer.error
        note = _encoding_note(token_encoding) if status == 401 else ""
        return _api(
            Verdict.OK,
            f"{where}: reachable, {transport}; answers like the API (HTTP {status}, "
            f"code {err.code!r}, type {err.type!r} to a request without a token){note}",
        )
    if answer.error is not None:
        return _api(
            Verdict.WARNING,
            f"{where}: reachable, {transport}; HTTP {status} with a message "
            f"({answer.error.message!r}) but no code or type: a gateway in front of the API?",
            "if commands fail with this message, check the base URL's path and any proxy",
        )
    body = f": {answer.excerpt!r}" if answer.excerpt else " with an empty body"
    return _api(
        Verdict.PROBLEM,
        f"{where}: reachable, {transport}; HTTP {status}{body}, not the API's error object",
        "this URL serves something else: check the base URL (scheme, host, port)",
    )


# The shared (team) store: reachable, its schema version, entries not yet shared.
#
# Skipped in solo mode (no ``store`` in the profile, no ``BOTTUI_STORE_URL``).
# The count of entries waiting is read from the local journal's outbox, and
# only when a journal exists: the doctor creates no file.


_team: Final = partial(Check, "team-store", "Team store")


async def check_team_store(
    url: str | None,
    environ: Mapping[str, str],
    tokens: TokenStore,
    journal: Path,
    *,
    timeout: float,
    scope: Scope | None = None,
) -> Check:
    """Connect once, read the schema version, count what waits to be shared, and
    what was journaled here before the store (of ``scope``) and is not shared."""
    if not url:
        return _team(Verdict.SKIPPED, "solo mode: no team store is configured")
    try:
        store = await open_team_store_url(url, environ, tokens, timeout=timeout)
    except StoreError as exc:
        return _team(Verdict.PROBLEM, f"refused: {_said(exc)}", _FIX_URL)
    team = TeamSync(journal, store) if journal.exists() else None
    try:
        status = await store.status()
        waiting = (await team.backlog()).waiting if team is not None else 0
        older = await team.not_shared(scope) if team is not None and scope is not None else 0
    except StoreError as exc:
        return _team(
            Verdict.PROBLEM,
            f"{store.target.where}: {_said(exc)}",
            "check that the server runs and this machine may reach it; "
            "the password comes from ~/.pgpass, PGPASSWORD or bottui token set store",
        )
    finally:
        if team is not None:
            await team.close()
        else:
            await store.close()
    found = (
        f"{status.where}: reachable as {status.role} (PostgreSQL {status.server_version}), "
        f"schema version {status.schema_version} (this bottui: {status.app_schema_version}), "
        f"{waiting} entr{'y' if waiting == 1 else 'ies'} not yet shared"
    )
    if older:
        found += f", {older} journaled here before the store and not shared"
    if status.schema_version < status.app_schema_version:
        return _team(Verdict.PROBLEM, found, "bottui store migrate")
    if status.schema_version > status.app_schema_version:
        return _team(Verdict.PROBLEM, found, "upgrade bottui: the store is newer")
    if older:
        return _team(
            Verdict.WARNING,
            found,
            "bottui store sync --backfill shares those of this base URL, account and project",
        )
    if waiting:
        return _team(
            Verdict.WARNING,
            found,
            "bottui store sync (every command also pushes at its end)",
        )
    return _team(Verdict.OK, found)


_FIX_URL: Final = 'fix the store URL: store = "postgresql://user@host/db" (no password in it)'


def _said(exc: StoreError) -> str:
    """The error's title and the first line of its details (the cause, mostly)."""
    first = exc.details.split("\n", 1)[0].strip() if exc.details else ""
    return f"{exc.title}: {first}" if first else exc.title


# The terminal: TERM, colours, tmux's Esc delay and mouse, and the OSC 52 clipboard.
#
# Everything here is read from the environment and from tmux, never by asking
# the terminal itself: a query sequence would need a reply read from the
# terminal, which a doctor run in a pipe or a script must not wait for. So
# some facts cannot be known (whether the terminal honours OSC 52), and the
# check says so instead of guessing.

#: Above this Esc feels slow (tmux waits this long for a key sequence after Esc).
ESCAPE_TIME_MAX_MS: Final = 25
_TRUECOLOR: Final = frozenset({"truecolor", "24bit"})

#: Terminals known to honour OSC 52 (TERM_PROGRAM values, TERM prefixes) without asking.
_OSC52_TERM_PROGRAMS: Final = {"WezTerm": "WezTerm", "ghostty": "Ghostty"}


_OSC52_TERMS: Final = {"xterm-kitty": "kitty", "foot": "foot", "xterm-ghostty": "Ghostty"}


_terminal: Final = partial(Check, "terminal", "Terminal")
_tmux: Final = partial(Check, "tmux", "tmux")
_clipboard: Final = partial(Check, "clipboard", "Clipboard (OSC 52)")


def check_terminal(environ: Mapping[str, str], tmux: TmuxFacts | None) -> Check:
    """TERM and COLORTERM: can the TUI draw, and in 24-bit colour?"""
    term = environ.get("TERM", "")
    colorterm = environ.get("COLORTERM", "")
    shown = f"TERM={term or '(unset)'}, COLORTERM={colorterm or '(unset)'}"
    if not term or term == "dumb":
        return _terminal(
            Verdict.WARNING,
            f"{shown}: not a terminal the TUI can draw on (the CLI works anywhere)",
            "run bottui in a terminal emulator; TERM is set by it (xterm-256color and alike)",
        )
    if colorterm.lower() in _TRUECOLOR:
        return _terminal(Verdict.OK, f"{shown}: 24-bit colour")
    if tmux is not None and tmux.features is not None and "RGB" in tmux.features:
        return _terminal(
            Verdict.OK,
            f"{shown}: tmux reports 24-bit colour (RGB) for the outer terminal",
        )
    return _terminal(
        Verdict.WARNING,
        f"{shown}: 24-bit colour not announced; colours are reduced to 256",
        "if the terminal shows 24-bit colour, export COLORTERM=truecolor "
        "(under tmux also: set -as terminal-features ',*:RGB')",
    )


def check_tmux(tmux: TmuxFacts | None) -> Check:
    """Inside tmux: ``escape-time`` (Esc delay) and ``mouse``."""
    if tmux is None:
        return _tmux(Verdict.SKIPPED, "not running inside tmux (TMUX unset)")
    if tmux.error is not None:
        return _tmux(
            Verdict.WARNING,
            f"{tmux.error}: escape-time and mouse unknown",
            "check that `tmux show -gv escape-time` answers in this pane",
        )
    found: list[str] = []
    fixes: list[str] = []
    slow = tmux.escape_time_ms is not None and tmux.escape_time_ms > ESCAPE_TIME_MAX_MS
    found.append(
        f"escape-time {tmux.escape_time_ms if tmux.escape_time_ms is not None else '?'} ms"
        + (f" (above {ESCAPE_TIME_MAX_MS} ms: Esc feels slow)" if slow else "")
    )
    if slow:
        fixes.append("set -sg escape-time 10")
    mouse_off = tmux.mouse != "on"
    found.append(
        f"mouse {tmux.mouse or '?'}"
        + (" (clicks and scrolling do not reach bottui)" if mouse_off else "")
    )
    if mouse_off:
        fixes.append("set -g mouse on")
    verdict = Verdict.WARNING if fixes else Verdict.OK
    fix = ""
    if fixes:
        fix = "add to ~/.tmux.conf: " + "; ".join(fixes) + " (then: tmux source ~/.tmux.conf)"
    return _tmux(verdict, ", ".join(found), fix)


def check_osc52(environ: Mapping[str, str], tmux: TmuxFacts | None) -> Check:
    """Can ``c`` (copy, OSC 52) reach the clipboard? As far as can be known without asking."""
    unknowable = (
        "whether the terminal honours OSC 52 cannot be known without asking it, "
        "and terminals do not answer that question"
    )
    if tmux is not None:
        if tmux.error is not None:
            return _clipboard(Verdict.SKIPPED, f"{tmux.error}; {unknowable}")
        if tmux.set_clipboard != "on":
            return _clipboard(
                Verdict.WARNING,
                f"tmux set-clipboard is {tmux.set_clipboard or '?'}: tmux drops the copy "
                "sequences applications send, so c (copy) does not reach the clipboard",
                "add to ~/.tmux.conf: set -s set-clipboard on",
            )
        if tmux.features is not None and "clipboard" in tmux.features:
            return _clipboard(
                Verdict.OK,
                "tmux set-clipboard on, and tmux reports the outer terminal takes OSC 52",
            )
        return _clipboard(
            Verdict.SKIPPED,
            f"tmux set-clipboard on; {unknowable} (tmux does not list it for this terminal)",
            "press c on a request in bottui and paste to try; if nothing comes, "
            "set -as terminal-features ',*:clipboard' for a terminal that does take it",
        )
    program = environ.get("TERM_PROGRAM", "")
    term = environ.get("TERM", "")
    known = _OSC52_TERM_PROGRAMS.get(program) or next(
        (name for prefix, name in _OSC52_TERMS.items() if term.startswith(prefix)), None
    )
    if known is not None:
        return _clipboard(Verdict.OK, f"{known} takes OSC 52")
    if program == "Apple_Terminal":
        return _clipboard(
            Verdict.WARNING,
            "macOS Terminal ignores OSC 52: c (copy) does not reach the clipboard",
            "select with the mouse to copy, or use a terminal that takes OSC 52 "
            "(iTerm2, WezTerm, kitty, Ghostty)",
        )
    if program == "iTerm.app":
        return _clipboard(
            Verdict.SKIPPED,
            "iTerm2 takes OSC 52 when 'Applications in terminal may access clipboard' is on; "
            "whether it is cannot be known from here",
            "iTerm2: Settings > General > Selection > "
            "Applications in terminal may access clipboard",
        )
    return _clipboard(
        Verdict.SKIPPED,
        f"{unknowable} (TERM={term or '(unset)'}, TERM_PROGRAM={program or '(unset)'})",
        "press c on a request in bottui and paste to try",
    )


# Running every check: the independent ones at once, each within its own time.


class Timeouts(msgspec.Struct, frozen=True):
    """Seconds each slow thing may take (a busy machine still answers well inside them)."""

    keyring: float = 3.0
    api: float = 4.0
    store: float = 3.0
    tmux: float = 2.0
    #: Added to a check's own timeouts to make its budget.
    margin: float = 1.5


DEFAULT_TIMEOUTS: Final = Timeouts()


class Prepared(msgspec.Struct, frozen=True):
    """What the checks start from, read before the event loop."""

    locations: Locations
    environ: Mapping[str, str]
    profile: ProfileFacts
    config: Check


def prepare(
    locations: Locations,
    options: CommonOptions,
    environ: Mapping[str, str],
    bindings: Iterable[KnownBinding],
) -> Prepared:
    """Read config.toml (and check it) and resolve the profile, as a command starts."""
    profile = resolve_profile(locations, options, environ)
    config = check_config(locations, bindings, profile.load_error)
    return Prepared(locations, environ, profile, config)


async def run_checks(prepared: Prepared, timeouts: Timeouts = DEFAULT_TIMEOUTS) -> list[Check]:
    """Every check, in a fixed order; they run concurrently where independent."""
    environ = prepared.environ
    settings = prepared.profile.settings
    tokens = TokenStore(environ, timeout=timeouts.keyring, scopes=prepared.profile.scopes)
    margin = timeouts.margin
    base_url = settings.base_url if settings is not None else None

    async def terminal_checks() -> list[Check]:
        facts: TmuxFacts | None = None
        if inside_tmux(environ):
            facts = await read_tmux(environ, timeout=timeouts.tmux)
        return [
            check_terminal(environ, facts),
            check_tmux(facts),
            check_osc52(environ, facts),
        ]

    async def tokens_check() -> Check:
        if settings is None or not base_url:
            return _tokens(Verdict.SKIPPED, "no base URL: no tokens to look up")
        session = Session(prepared.locations, settings, tokens)
        try:
            projects = await _known_projects(session)
        finally:
            await session.aclose()
        return await check_tokens(tokens, base_url, projects, environ, prepared.profile.scopes)

    async def api_check() -> Check:
        if not base_url:
            return _api(Verdict.SKIPPED, "no base URL to probe")
        encoding = settings.token_encoding if settings is not None else "raw"
        return await check_api(
            base_url,
            timeout=timeouts.api,
            source=prepared.profile.source,
            token_encoding=encoding,
        )

    store_url = settings.store_url if settings is not None else None
    terminal, keyring, tokens_found, api, team = await asyncio.gather(
        _bounded(terminal_checks(), timeouts.tmux + margin, _late_terminal),
        _bounded(
            check_keyring(tokens, environ),
            timeouts.keyring + margin,
            _late("keyring", "Keyring", "the keyring to answer"),
        ),
        _bounded(
            tokens_check(),
            timeouts.keyring + 2 * margin,
            _late("tokens", "Tokens", "the keyring and the inventory to list the tokens"),
        ),
        _bounded(
            api_check(),
            timeouts.api + margin,
            _late("api", "API at the base URL", "the API's answer to one probe request"),
        ),
        _bounded(
            check_team_store(
                store_url,
                environ,
                tokens,
                prepared.locations.journal_file,
                timeout=timeouts.store,
                scope=None
                if settings is None or not settings.base_url
                else Scope(settings.base_url, settings.account, settings.project),
            ),
            timeouts.keyring + timeouts.store + margin,
            _late("team-store", "Team store", "the team store (PostgreSQL) to answer"),
        ),
    )
    return [
        check_versions(),
        *terminal,
        check_profile(prepared.profile),
        prepared.config,
        keyring,
        tokens_found,
        api,
        team,
    ]


async def _known_projects(session: Session) -> list[tuple[str, str]]:
    """The profile's default project, then those its inventory knows (if it has one yet)."""
    settings = session.settings
    found: dict[tuple[str, str], None] = {}
    if settings.account and settings.project:
        found[(settings.account, settings.project)] = None
    # No inventory file yet: nothing to read, and the doctor creates no file.
    if session.locations.inventory_file.exists():
        for entry in await read_all_projects(session):
            found[(entry.account, entry.project)] = None
    return list(found)


T = TypeVar("T")


async def _bounded(work: Awaitable[T], budget: float, late: Callable[[float], T]) -> T:
    """``work``'s result, or ``late(budget)`` when it does not finish within ``budget`` s."""
    try:
        async with asyncio.timeout(budget):
            return await work
    except TimeoutError:
        return late(budget)


def _late(check_id: str, title: str, waited_for: str) -> Callable[[float], Check]:
    """The result of a check that overran its budget: a warning that says what it waited for.

    Not a problem: nothing was found broken, only slow (a busy machine); a
    thing that is really unavailable fails its own, shorter, check first.
    """

    def late(budget: float) -> Check:
        return Check(
            check_id,
            title,
            Verdict.WARNING,
            f"timed out after {budget:g} s waiting for {waited_for}",
            "run bottui doctor again; if it persists, this is what hangs",
        )

    return late


def _late_terminal(budget: float) -> list[Check]:
    return [
        _terminal(Verdict.SKIPPED, f"not finished within {budget:g} s"),
        _tmux(Verdict.WARNING, f"tmux did not answer within {budget:g} s"),
        _clipboard(Verdict.SKIPPED, "tmux did not answer"),
    ]
