"""The shells' Tab callback: ``bottui __complete SHELL -- WORD... CURRENT``.

The scripts of :mod:`bottui.cli.completion` run it at every Tab with the words
after ``bottui`` (the last one being the word under the cursor) and read its
answer: a first line ``:words`` or ``:files`` (the shell completes file names
itself), then one candidate per line. Which commands, options and choices exist
is read from :data:`TREE_FILE` (the parser as data), so a new command completes
without an edit here; profile names and the inventory's ids come from
:func:`profile_names` and :func:`known_ids` (read-only).

Every candidate passes :func:`safe`: only letters, digits and ``. _ - + @ , % /``
(:data:`SAFE`), not starting with ``-`` (an option's place), at most 200 characters.
An id from a server or a file holding anything else (``$``, backticks,
quotes, spaces, ``;``, ``*``, a backslash, a control character, a colon...)
is left out, so a script could not expand it even by mistake. The callback
never prints a traceback, never touches the network or a token, and writes
nothing; whatever goes wrong, it answers nothing and exits 0.

Profile names and ids come from the user's files, synchronously and
read-only: the callback is a short process that runs no event loop, glances
at ``config.toml`` once (:func:`glance_config`) and at the inventory through
:func:`~bottui.store.inventory.inventory_peek.peek_ids` (SQLite ``mode=ro``). The
profile, account and project are the ones already on the command line, else
the profile's own (as a command would resolve them, see
:class:`bottui.ops.session.Settings`). Any failure is an empty answer.

Imported by nothing but the registry, at a Tab: no parser, no argparse, no
command module, no config model (a Tab is held to 2x ``python -c pass``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple, cast, get_args

from bottui.plaintext import has_control
from bottui.store import toml_read
from bottui.store.files import Locations
from bottui.store.inventory.inventory_peek import Kind, peek_ids

# Not imported, measured (CPU over ``python -c pass``, 20 runs interleaved, the
# busy 2-core machine, 2026-11-28; a Tab is held to 2x ``python -c pass``, 21 ms):
# the config model, +36 ms (msgspec alone +22 ms, with typing_extensions and
# inspect; see :func:`glance_config`), and dataclasses, +8 ms (inspect, ast, dis,
# tokenize). The Tab went from 3.40x to ~1.9x (tests/bench/cli_startup.py).

#: The characters a candidate may hold (an allow-list: nothing a shell expands).
SAFE: Final = re.compile(r"[A-Za-z0-9._+@,%/][A-Za-z0-9._+@,%/-]{0,199}")

SHELLS: Final = ("bash", "zsh", "fish")

#: A value's kind, by the option's or positional's ``dest`` (or metavar, lowercased).
_KINDS: Final[dict[str, str]] = {
    "profile": "profiles",
    "account": "accounts",
    "project": "projects",
    "limiter_id": "limiters",
    "dimension_id": "dimensions",
    "file": "files",
    "from_file": "files",
    "output": "files",
    "export": "files",
}


def safe(word: str) -> bool:
    """True when ``word`` holds only :data:`SAFE` characters."""
    return SAFE.fullmatch(word) is not None


def _printable(word: str) -> bool:
    """A candidate as printed: a safe value, an option, or an option's ``--name=`` and a value."""
    _, eq, value = word.partition("=")
    return safe(value) if eq else safe(word.lstrip("-"))


#: One parser of the command line as data: ``options`` (option string -> ``dest``,
#: ``metavar``, whether it takes a ``value``, its ``choices``), the options its
#: ``--help`` ``shown``, and its positional ``args`` in order (a value, or the
#: ``commands`` of a subparsers action with those ``shown``).
Node = dict[str, Any]

#: The whole command line as :func:`tree` writes it, read at every Tab.
TREE_FILE: Final = Path(__file__).with_name("command_tree.json")


class _Line:
    """What the words before the cursor say: where in the tree, with which values."""

    __slots__ = ("lost", "node", "path", "pending", "positional", "values")

    def __init__(self, node: Node) -> None:
        self.node = node
        self.path: list[str] = []
        self.values: dict[str, str] = {}
        self.positional = 0
        self.pending: Node | None = None
        self.lost = False


def _option(node: Node, word: str) -> Node | None:
    """The option ``word`` names, exactly or by a unique prefix (argparse's abbreviation)."""
    options: dict[str, Node] = node["options"]
    found = options.get(word)
    if found is not None or not word.startswith("--"):
        return found
    matches = {o["dest"]: o for s, o in options.items() if s.startswith(word)}
    return next(iter(matches.values())) if len(matches) == 1 else None


def _read(node: Node, words: Sequence[str]) -> _Line:
    """Walk the words before the cursor as argparse would, remembering the values seen."""
    line = _Line(node)
    only_positionals = False
    for word in words:
        if line.pending is not None:
            if word != "=":  # bash splits --profile=prod at the '='
                line.values[line.pending["dest"]] = word
                line.pending = None
            continue
        if word == "--" and not only_positionals:
            only_positionals = True
        elif word.startswith("-") and len(word) > 1 and not only_positionals:
            name, eq, value = word.partition("=")
            option = _option(line.node, name)
            if option is not None and option["value"]:
                if eq:
                    line.values[option["dest"]] = value
                else:
                    line.pending = option
        else:
            _positional(line, word)
        if line.lost:
            break
    return line


def _positional(line: _Line, word: str) -> None:
    args = line.node["args"]
    if line.positional >= len(args):
        return
    arg = args[line.positional]
    if "commands" not in arg:
        line.values[arg["dest"]] = word
        if not arg["many"]:
            line.positional += 1
    elif word in arg["commands"]:
        line.node, line.positional = arg["commands"][word], 0
        line.path.append(word)
    else:
        line.lost = True  # not a command: nothing sensible to offer


class Answer(NamedTuple):
    """The callback's answer: ``files`` (the shell lists file names) or these words."""

    words: list[str]
    files: bool = False


def answer(words: Sequence[str], locations: Locations) -> Answer:
    """The candidates for the last of ``words`` (the words after ``bottui``)."""
    *before, current = list(words) or [""]
    line = _read(json.loads(TREE_FILE.read_text(encoding="utf-8")), before)
    if line.lost:
        return Answer([])
    if line.pending is not None:
        return _values(line, line.pending, current, "", locations)
    if current.startswith("--") and "=" in current:
        name, _, value = current.partition("=")
        option = _option(line.node, name)
        if option is None or not option["value"]:
            return Answer([])
        return _values(line, option, value, name + "=", locations)
    if current.startswith("-"):
        return Answer([o for o in line.node["shown"] if o.startswith(current)])
    args = line.node["args"]
    if line.positional < len(args):
        arg = args[line.positional]
        if "commands" in arg:
            return Answer([c for c in arg["shown"] if c.startswith(current)])
        return _values(line, arg, current, "", locations)
    # Nothing positional is left: the options are all there is to type.
    return Answer(line.node["shown"] if current == "" else [])


def _kind(line: _Line, about: Node) -> str | None:
    if line.path[:1] == ["profile"] and line.path[1:] != ["add"] and about["dest"] == "name":
        return "profiles"
    for key in (about["dest"], str(about["metavar"] or "").lower()):
        if key in _KINDS:
            return _KINDS[key]
    return None


def _values(line: _Line, about: Node, current: str, before: str, locations: Locations) -> Answer:
    """The values an option or positional may take that start with ``current`` (each
    after ``before``)."""
    kind = _kind(line, about)
    if kind == "files":
        return Answer([], files=True)
    found: list[str] = []
    if about["choices"] is not None:
        found = [choice for choice in about["choices"] if choice.startswith(current)]
    elif kind == "profiles":
        found = profile_names(locations, current)
    elif kind in get_args(Kind):  # the kinds the inventory answers
        found = known_ids(
            locations,
            cast(Kind, kind),
            current,
            profile=line.values.get("profile"),
            account=line.values.get("account"),
            project=line.values.get("project"),
        )
    return Answer([before + value for value in found if safe(value)])


def callback(words: Sequence[str]) -> int:
    """``bottui __complete SHELL -- WORD...``: print the answer; exit 0 whatever happens."""
    try:
        shell, dash, *rest = words
        if shell not in SHELLS or dash != "--":
            return 0
        found = answer(rest, Locations.default())
        lines = [":files" if found.files else ":words"]
        lines += sorted({word for word in found.words if _printable(word)})
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BaseException:  # a Tab never shows a traceback (nor a ^C one)
        return 0
    return 0


# -- profile names and inventory ids ----------------------------------------------------

#: The inventory scope of a session with no profile: ``bottui.ops.session.DEFAULT_PROFILE``,
#: not imported (it costs the callback ~30 ms at every Tab); a test checks they agree.
DEFAULT_PROFILE = "default"
#: ``bottui.store.config.config_model.MAX_CONFIG_BYTES``, not imported (the model, see
#: above); a test checks they agree.
MAX_CONFIG_BYTES: Final = 4 * 1024 * 1024


class Glance(NamedTuple):
    """What a Tab needs of ``config.toml``: each profile's (account, project), the current one."""

    profiles: dict[str, tuple[str | None, str | None]]
    current: str | None = None


def glance_config(locations: Locations) -> Glance | None:
    """The profiles of ``config.toml`` as a Tab needs them; None when they cannot be told.

    Read as :class:`~bottui.store.config.config_file.ConfigStore` reads it
    (:mod:`bottui.store.toml_read`: bounded, a missing file is no profile),
    but not through the model: the keys a Tab uses are judged as the model
    judges them (each profile a table under a name that is not blank nor
    holds a control character, ``current``, ``account`` and ``project``
    strings; a ``current`` naming no profile is no current profile), and a
    wrong one is None, as a file the model refuses. A wrong value elsewhere
    (a ``base_url`` without a host) does not hide the names: the command,
    once run, says what is wrong.
    """
    try:
        _, data = toml_read.read(locations.config_file, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return Glance({})
    except (toml_read.TomlProblem, OSError, ValueError):
        return None
    tables = data.get("profiles", {})
    current = data.get("current")
    if not isinstance(tables, dict) or not isinstance(current, str | None):
        return None
    profiles: dict[str, tuple[str | None, str | None]] = {}
    for name, table in tables.items():
        if not isinstance(table, dict) or not name.strip() or has_control(name):
            return None
        account, project = table.get("account"), table.get("project")
        if not isinstance(account, str | None) or not isinstance(project, str | None):
            return None
        profiles[name] = (account, project)
    return Glance(profiles, current if current in profiles else None)


def profile_names(locations: Locations, prefix: str = "") -> list[str]:
    """The profiles of ``config.toml`` starting with ``prefix``, sorted."""
    config = glance_config(locations)
    if config is None:
        return []
    return sorted(name for name in config.profiles if name.startswith(prefix))


def known_ids(
    locations: Locations,
    kind: Kind,
    prefix: str = "",
    *,
    profile: str | None = None,
    account: str | None = None,
    project: str | None = None,
) -> list[str]:
    """The inventory's ids of ``kind`` starting with ``prefix``, for that profile/account/project.

    An unknown ``profile`` has nothing (the command would refuse it); with no
    ``profile``, the current one (else the inventory's ``default`` scope).
    """
    config = glance_config(locations) or Glance({})
    scope = config.current if profile is None else profile
    ids = config.profiles.get(scope) if scope is not None else None
    if profile is not None and ids is None:
        return []
    own_account, own_project = ids or (None, None)
    return peek_ids(
        locations.inventory_file,
        scope or DEFAULT_PROFILE,
        kind,
        prefix=prefix,
        account=account or own_account,
        project=project or own_project,
    )
