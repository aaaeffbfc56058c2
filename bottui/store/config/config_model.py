"""``config.toml`` declared once: profiles, per-project settings, and how the file is read.

The frozen dataclasses below (:class:`Config`, :class:`Profile`,
:class:`ProjectSettings`) declare every key of the file: its type, its
default and, in the ``#:`` comment above it, what it means
(``docs/generate.py`` writes docs/reference/config.md from them). Each checks
its own values when constructed, so code that builds one in memory is held
to the same rules as the file.

msgspec reads the parsed TOML into them (``msgspec.convert``): it checks every
type (``true`` is not a number, ``1`` is not a string) and the dataclasses
judge the values. One reader (:class:`ConfigReader`) serves both ways the
file is read:

- loading (:func:`parse_config`) stops at the first wrong value, which
  :class:`~bottui.store.config.config_file.ConfigStore` turns into a
  ``ConfigError`` naming where it is (``profiles."prod".projects[0].threshold_min``);
  an unknown key is passed over, so a typo never stops an operator mid-incident;
- ``config check`` (:func:`~bottui.store.config.config_file.check_config_file`)
  wants every problem at once, each on its line: the reader goes on after a
  wrong value, judges the values
  of a table only when its types are right (so nothing is said twice), and
  names every key the model does not have (``protect = true`` for
  ``protected``), with the closest known key.

``tomllib`` gives no line numbers: :func:`key_lines` finds the line of each
key by a scan of the text (the file is valid TOML by then). msgspec was
chosen over pydantic on measured import time (pyproject.toml says the figures).
"""

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Mapping
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit

import msgspec
from msgspec.structs import fields

from bottui.api.tokens import TOKEN_ENCODINGS
from bottui.plaintext import clean, has_control
from bottui.store.store_errors import InvalidValue

_SCHEMES: Final = ("http", "https")
#: A config file larger than this is refused unread (a real one is a few KB).
MAX_CONFIG_BYTES: Final = 4 * 1024 * 1024


class Unchanged(enum.Enum):
    """The type of :data:`UNCHANGED` (one value)."""

    UNCHANGED = enum.auto()


#: Sentinel for :meth:`ConfigStore.set_defaults`: leave this field as it is.
UNCHANGED: Final = Unchanged.UNCHANGED


def validate_profile_name(name: str) -> str:
    """Return ``name`` if it can name a profile; raise :class:`InvalidValue` if not."""
    if not isinstance(name, str) or not name.strip():
        raise InvalidValue("A profile name cannot be empty")
    if has_control(name):
        raise InvalidValue(
            "A profile name cannot hold control characters", f"Name: {clean(name)!r}"
        )
    return name


def validate_base_url(base_url: str) -> str:
    """Return ``base_url`` if it is an ``http``/``https`` URL with a host; raise if not.

    Refused as well: blanks or control characters, user name or password in
    the URL (a credential must not land in the config file), a query or a
    fragment, a port that is not a number.
    """
    shown = clean(base_url)
    if not isinstance(base_url, str) or not base_url:
        raise InvalidValue("A base URL cannot be empty")
    if has_control(base_url) or any(ch.isspace() for ch in base_url):
        raise InvalidValue("A base URL cannot hold blanks or control characters", shown)
    try:
        parts = urlsplit(base_url)
        _ = parts.port
    except ValueError:
        raise InvalidValue("Not a valid URL", shown) from None
    if parts.scheme.lower() not in _SCHEMES:
        raise InvalidValue("A base URL must start with http:// or https://", shown)
    if not parts.hostname:
        raise InvalidValue("A base URL needs a host", shown)
    if parts.username is not None or parts.password is not None:
        raise InvalidValue(
            "A base URL cannot carry a user name or password",
            "Credentials belong in the keyring or the environment, never in config.toml.",
        )
    if parts.query or parts.fragment or "?" in base_url or "#" in base_url:
        # not echoed: a query may hold a credential
        raise InvalidValue("A base URL cannot have a query or a fragment")
    return base_url


def validate_store_url(store: str) -> str:
    """Return ``store`` if it can name a team store in ``config.toml``; raise if not.

    Only what needs no driver: a ``postgresql://`` URL without a password
    (the full check, TLS included, is :func:`bottui.store.team.store_target.check_store_url`).
    """
    if not isinstance(store, str) or not store.strip():
        raise InvalidValue("store must be a postgresql:// URL")
    if has_control(store) or any(ch.isspace() for ch in store):
        raise InvalidValue("A store URL cannot hold blanks or control characters")
    try:
        parts = urlsplit(store)
        password = parts.password
    except ValueError:
        raise InvalidValue("store is not a valid URL") from None
    if parts.scheme.lower() not in ("postgresql", "postgres"):
        raise InvalidValue("store must be a postgresql:// URL")
    if password is not None or "password=" in parts.query.lower():
        # not echoed: it holds the password
        raise InvalidValue(
            "A store URL cannot carry a password",
            "Give it through ~/.pgpass, PGPASSWORD, PGSERVICE, a client certificate, "
            "or the keyring: bottui token set store --profile NAME",
        )
    return store


class ProjectSettings(msgspec.Struct, frozen=True):
    """How the thresholds of one project are shown and checked."""

    #: Lowest value a score threshold can take.
    threshold_min: float = 0.0
    #: Highest value a score threshold can take; greater than ``threshold_min``.
    threshold_max: float = 1.0
    #: True when a higher score means a riskier request.
    higher_is_riskier: bool = True

    def __post_init__(self) -> None:
        for name in ("threshold_min", "threshold_max"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidValue(f"{name} must be a number")
            if not math.isfinite(value):
                raise InvalidValue(f"{name} must be a finite number")
            msgspec.structs.force_setattr(self, name, float(value))
        if not self.threshold_min < self.threshold_max:
            raise InvalidValue(
                "threshold_min must be lower than threshold_max",
                f"threshold_min = {self.threshold_min:g}, threshold_max = {self.threshold_max:g}",
            )
        if not isinstance(self.higher_is_riskier, bool):
            raise InvalidValue("higher_is_riskier must be true or false")


class Profile(msgspec.Struct, frozen=True):
    """One API endpoint the user works with, and how carefully."""

    #: Unique name of the profile: not blank, no control characters.
    name: str
    #: ``http``/``https`` URL of the API, with a host (no credentials, query, fragment).
    base_url: str
    #: Refuse every operation that changes something.
    read_only: bool = False
    #: Ask for confirmation (``--yes`` on the CLI) before any change.
    protected: bool = False
    #: Account id used when none is given.
    account: str | None = None
    #: Project id used when none is given.
    project: str | None = None
    #: Threshold settings per ``(account id, project id)``.
    projects: dict[tuple[str, str], ProjectSettings] = msgspec.field(default_factory=dict)
    #: Who makes this profile's changes, as journaled (over the config's ``operator``).
    operator: str | None = None
    #: Refuse a change without a reason (``--reason``, the TUI's reason field).
    require_reason: bool = False
    #: The team store: a ``postgresql://`` URL without a password, or ``None``.
    store: str | None = None
    #: Minutes a timed change's revert may be late and still be sent by
    #: ``bottui run-due`` without ``--late-ok`` (None: 60).
    late_limit_minutes: int | None = None
    #: How tokens travel in ``X-Api-Key``: ``"raw"`` (the contract) or
    #: ``"base64"`` (the real service's documentation): :mod:`bottui.api.tokens`.
    token_encoding: str = "raw"

    def __post_init__(self) -> None:
        # The types are msgspec's to check (the file) and mypy's (code); here, the values.
        validate_profile_name(self.name)
        validate_base_url(self.base_url)
        if self.store is not None:
            validate_store_url(self.store)
        limit = self.late_limit_minutes
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_080
        ):
            raise InvalidValue("late_limit_minutes must be a whole number from 1 to 10080")
        if self.token_encoding not in TOKEN_ENCODINGS:
            raise InvalidValue('token_encoding must be "raw" or "base64"')


class Config(msgspec.Struct, frozen=True):
    """Everything in ``config.toml``."""

    #: Name of the profile used when none is given, or ``None``.
    current: str | None = None
    #: Profiles by name; each key equals its profile's ``name``.
    profiles: dict[str, Profile] = msgspec.field(default_factory=dict)
    #: Name of the Textual theme, or ``None`` for the default.
    theme: str | None = None
    #: The ``[keymap]`` table: binding id -> keys (``"limiters.toggle" = "t"``).
    #: Only string pairs are read; anything else in the table is left alone,
    #: so a typo never stops the app from starting.
    keymap: dict[str, str] = msgspec.field(default_factory=dict)
    #: Who makes the changes, as journaled, unless the profile or
    #: ``BOTTUI_OPERATOR`` says otherwise (``None``: ``user@host``).
    operator: str | None = None

    def __post_init__(self) -> None:
        for name, profile in self.profiles.items():
            if profile.name != name:
                raise InvalidValue("a profile is filed under its own name", clean(name))
        if self.current is not None and self.current not in self.profiles:
            raise InvalidValue("current names no profile", clean(self.current))

    def profile(self, name: str | None = None) -> Profile | None:
        """The profile called ``name``, else the current one; ``None`` if there is none."""
        key = self.current if name is None else name
        return None if key is None else self.profiles.get(key)


class ProjectRow(ProjectSettings, frozen=True, kw_only=True):
    """One ``[[profiles.NAME.projects]]`` entry: the ids it is filed under, and its settings."""

    account: str
    project: str

    def settings(self) -> ProjectSettings:
        """The settings alone (what :attr:`Profile.projects` holds)."""
        return ProjectSettings(self.threshold_min, self.threshold_max, self.higher_is_riskier)


# -- reading the parsed file into the model -----------------------------------------

#: A key's place in the file: ``("profiles", "prod", "projects", 0, "threshold_min")``.
Key = tuple[str | int, ...]
T = TypeVar("T")

#: The keys of each table the file may hold (``name`` is the profile's table name).
KNOWN: Final[dict[type, frozenset[str]]] = {
    Config: frozenset(Config.__struct_fields__),
    Profile: frozenset(Profile.__struct_fields__) - {"name"},
    ProjectRow: frozenset(ProjectRow.__struct_fields__),
}
#: The keys each table must hold. Read once: ``msgspec.structs.fields`` resolves the
#: annotations at every call (~0.1 ms), and a config reads a table per profile and project.
_REQUIRED: Final[dict[type, tuple[str, ...]]] = {
    cls: tuple(f.name for f in fields(cls) if f.required) for cls in KNOWN
}
#: msgspec's names of types, in the words ``config check`` uses.
_KINDS: Final = {
    "str": "a string",
    "bool": "true or false",
    "float": "a number",
    "int": "a whole number",
    "object": "a table",
    "array": "an array of tables ([[...]])",
}
_WRONG_TYPE: Final = re.compile(r"Expected `(\w+)[^`]*`, got `[^`]*` - at `\$\.(\w+)`")


class Malformed(Exception):
    """A wrong value in the parsed file; becomes a ConfigError."""


def toml_key(key: str) -> str:
    """``key`` as TOML writes it: bare when it can be, else quoted."""
    if re.fullmatch(r"[A-Za-z0-9_-]+", key):
        return key
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def shown_key(key: Key) -> str:
    """``profiles.prod.projects[0].threshold_min``: a key as config check names it."""
    parts: list[str] = []
    for part in key:
        parts.append(
            f"[{part}]" if isinstance(part, int) else ("." if parts else "") + toml_key(part)
        )
    return "".join(parts)


class ConfigReader:
    """Reads the parsed file into the model: strict (the first problem raises) or collecting.

    Collecting, it goes on after a wrong value: every wrong type and missing
    key is in :attr:`problems`; the values of a profile are judged (once, the
    first refusal) only when none of its keys had a wrong type.
    """

    def __init__(self, *, collect: bool) -> None:
        self.collect = collect
        self.problems: list[tuple[Key, str]] = []
        #: Each key the model does not have, with the keys its table may hold.
        self.unknown: list[tuple[Key, frozenset[str]]] = []
        self._judged: list[tuple[Key, str]] = []

    def fail(self, key: Key, message: str) -> None:
        if not self.collect:
            raise Malformed(clean(message))
        self.problems.append((key, message))

    def judge(self, key: Key, message: str) -> None:
        """A value the model refuses: said at once when strict, else kept for :meth:`settle`."""
        if not self.collect:
            raise Malformed(clean(message))
        self._judged.append((key, message))

    def settle(self, before: int) -> None:
        """Say the first refused value of a table unless a wrong type was found since ``before``."""
        if len(self.problems) == before and self._judged:
            self.problems.append(self._judged[0])
        self._judged.clear()

    def convert(self, cls: type[T], table: object, where: Key, **given: Any) -> T | None:
        """``table`` as ``cls``: msgspec checks each type, ``cls`` the values; None if refused."""
        if not isinstance(table, dict):
            self.fail(where, f"{shown_key(where)} must be a table")
            return None
        known = KNOWN[cls]
        self.unknown += [((*where, key), known) for key in table if key not in known]
        data = {key: value for key, value in table.items() if key in known} | given
        wrong = False
        for name in _REQUIRED[cls]:
            if name not in data:
                self.fail(where, f"{shown_key((*where, name))} is missing")
                data[name] = ""  # every required key is a string: its type is checked no more
                wrong = True
        while True:
            try:
                value = msgspec.convert(data, cls)
            except msgspec.ValidationError as exc:
                match = _WRONG_TYPE.match(str(exc))
                if match is None:
                    if not wrong:
                        self.judge(where, f"{shown_key(where)}: {_refusal(exc)}")
                    return None
                kind, key = match.groups()
                self.fail((*where, key), f"{shown_key((*where, key))} must be {_KINDS[kind]}")
                del data[key]
                wrong = True
            else:
                return None if wrong else value

    def projects(self, entries: object, where: Key) -> dict[tuple[str, str], ProjectSettings]:
        at: Key = (*where, "projects")
        if not isinstance(entries, list):
            self.fail(at, f"{shown_key(at)} must be {_KINDS['array']}")
            return {}
        projects: dict[tuple[str, str], ProjectSettings] = {}
        for index, entry in enumerate(entries):
            row = self.convert(ProjectRow, entry, (*at, index))
            if row is None:
                continue
            ids = (row.account, row.project)
            if ids in projects:
                self.judge(
                    (*at, index),
                    f"{shown_key((*at, index))} repeats account {clean(ids[0])!r},"
                    f" project {clean(ids[1])!r}",
                )
            projects[ids] = row.settings()
        return projects

    def profile(self, name: str, table: object) -> Profile | None:
        where: Key = ("profiles", name)
        before = len(self.problems)
        projects = {}
        if isinstance(table, dict):
            projects = self.projects(table.get("projects", []), where)
            table = {key: value for key, value in table.items() if key != "projects"}
        profile = self.convert(Profile, table, where, name=name, projects=projects)
        self.settle(before)
        return profile

    def config(self, data: Mapping[str, Any]) -> Config:
        table = data.get("profiles", {})
        if not isinstance(table, dict):
            self.fail(("profiles",), "profiles must be a table")
            table = {}
        read = {name: self.profile(name, value) for name, value in table.items()}
        profiles = {name: profile for name, profile in read.items() if profile is not None}
        keymap = data.get("keymap", {})
        if not isinstance(keymap, dict):
            if self.collect:  # loading leaves it alone: a typo never stops the app
                self.fail(("keymap",), "keymap must be a table")
            keymap = {}
        top = {key: value for key, value in data.items() if key not in ("profiles", "keymap")}
        current = top.get("current")
        if isinstance(current, str) and current not in profiles:
            del top["current"]  # a dangling name: no current profile, the file is left alone
        before = len(self.problems)
        config = self.convert(
            Config,
            top,
            (),
            profiles=profiles,
            keymap={k: v for k, v in keymap.items() if isinstance(k, str) and isinstance(v, str)},
        )
        self.settle(before)
        top_wrong = any(len(key) <= 1 for key, _ in self.problems)
        if isinstance(current, str) and current not in table and not top_wrong:
            self.problems.append(
                (("current",), f"current = {clean(current)!r} names no profile: it is ignored")
            )
        return config or Config(profiles=profiles)


def _refusal(exc: msgspec.ValidationError) -> str:
    """The model's own words for a value it refused (title, and details when it has them)."""
    cause = exc.__cause__
    if isinstance(cause, InvalidValue):
        return f"{cause.title} ({cause.details})" if cause.details else cause.title
    return str(exc)


def parse_config(data: Mapping[str, Any]) -> Config:
    """The config the parsed file holds.

    Raises:
        Malformed: the first wrong value, naming its key.
    """
    return ConfigReader(collect=False).config(data)


# -- where each key is: a scan of the lines (the file is valid TOML by then) ----------

_PART = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_DOTTED = re.compile(rf"\s*({_PART}(?:\s*\.\s*{_PART})*)\s*")
_PARTS = re.compile(_PART)


def _key_parts(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    for token in _PARTS.findall(text):
        if token.startswith('"'):
            try:
                parts.append(json.loads(token))
            except ValueError:
                parts.append(token[1:-1])
        elif token.startswith("'"):
            parts.append(token[1:-1])
        else:
            parts.append(token)
    return tuple(parts)


def key_lines(text: str) -> dict[Key, int]:
    """The 1-based line of each table header and each ``key =`` of the file.

    Array-of-tables entries are keyed by index (``profiles, prod, projects,
    0``). Keys inside inline tables and multi-line values are not scanned:
    their problems are reported on the line of the key holding them.
    """
    lines: dict[Key, int] = {}
    counts: dict[Key, int] = {}
    table: Key = ()
    skip_until: str | None = None  # the closing quotes of a multi-line string
    depth = 0  # of brackets of a multi-line array
    for number, line in enumerate(text.splitlines(), start=1):
        if skip_until is not None:
            if skip_until in line:
                skip_until = None
            continue
        if depth > 0:
            depth = max(0, depth + _brackets(line))
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[["):
            path = _key_parts(stripped[2 : stripped.index("]]")])
            index = counts.get(path, 0)
            counts[path] = index + 1
            table = (*path, index)
            lines.setdefault(path, number)
            lines[table] = number
            continue
        if stripped.startswith("["):
            table = _key_parts(stripped[1 : stripped.index("]")])
            lines.setdefault(table, number)
            continue
        match = _DOTTED.match(line)
        if match is None or "=" not in line[match.end() : match.end() + 1]:
            continue
        parts = _key_parts(match.group(1))
        for n in range(1, len(parts) + 1):  # a.b.c = 1 defines a and a.b as well
            lines.setdefault((*table, *parts[:n]), number)
        value = line[match.end() + 1 :]
        for quotes in ('"""', "'''"):
            if value.count(quotes) == 1:
                skip_until = quotes
        if skip_until is None:
            depth = max(0, _brackets(value))
    return lines


def _brackets(text: str) -> int:
    """Opened minus closed ``[`` outside strings and comments (roughly: ids hold none)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", text).split("#", 1)[0]
    return text.count("[") - text.count("]")


__all__ = [
    "KNOWN",
    "MAX_CONFIG_BYTES",
    "UNCHANGED",
    "Config",
    "ConfigReader",
    "Key",
    "Malformed",
    "Profile",
    "ProjectRow",
    "ProjectSettings",
    "Unchanged",
    "key_lines",
    "parse_config",
    "shown_key",
    "toml_key",
    "validate_base_url",
    "validate_profile_name",
    "validate_store_url",
]
