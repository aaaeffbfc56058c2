"""Every check of the user's files, in one list: ``bottui config check`` and the start warnings.

The checkers of config.toml and the playbook files (:data:`CHECKERS`), and
the check of a ``[keymap]`` table against the app's bindings
(:func:`check_keymap`), which needs the TUI's bindings.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from bottui.plaintext import clean
from bottui.store.files import Locations

if TYPE_CHECKING:
    from bottui.store.config.config_file import ConfigCheck


# Every check of the user's files, in one list: ``bottui config check`` and the start warnings.
#
# A checker takes the :class:`CheckedFiles` of one run (the
# :class:`~bottui.store.files.Locations`, and config.toml read and checked at
# most once, whoever asks) and returns the problems it found, each with its
# file and line. :data:`CHECKERS` is the one
# list both faces run, so a new kind of file (playbooks in the config
# directory) is checked everywhere by adding its checker here.
#
# The keymap is checked apart (:func:`keymap_problems`): it needs the TUI's
# bindings, which only ``config check`` and the TUI itself load.


class FileProblem(NamedTuple):
    """One problem of one file: where (line None when not known) and what."""

    path: Path
    line: int | None
    message: str

    @property
    def where(self) -> str:
        """``/home/me/.config/bottui/config.toml:12`` (the path alone without a line)."""
        return f"{self.path}:{self.line}" if self.line else str(self.path)


class CheckedFiles:
    """The files of one run of the checkers: config.toml is read and checked once, when asked."""

    def __init__(self, locations: Locations) -> None:
        self.locations = locations

    @cached_property
    def config(self) -> ConfigCheck | None:
        """What :func:`~bottui.store.config.config_file.check_config_file` found (no file: None)."""
        from bottui.store.config.config_file import check_config_file

        return check_config_file(self.locations.config_file)


Checker = Callable[[CheckedFiles], list[FileProblem]]


def config_file_problems(files: CheckedFiles) -> list[FileProblem]:
    """Unknown keys and wrong values of ``config.toml`` (no file: none)."""
    found = files.config
    if found is None:
        return []
    return [FileProblem(files.locations.config_file, p.line, p.message) for p in found.problems]


def playbook_problems(files: CheckedFiles) -> list[FileProblem]:
    """Unknown keys, bad values and bad names of the playbook files (none: none)."""
    from bottui.ops.playbooks.library import check_playbooks

    found = check_playbooks(files.locations)
    return [FileProblem(p.path, p.line, p.message) for p in found]


#: The checks of every file bottui reads, in the order they are reported.
CHECKERS: Final[list[Checker]] = [config_file_problems, playbook_problems]


def checkers_at_start(command: str) -> list[Checker]:
    """The checks the start of ``command`` runs: those of the files it reads.

    Every command reads config.toml; only ``playbook`` reads the playbook
    files (and the TUI and ``config check``, which run all of
    :data:`CHECKERS`). The others neither read them nor import their reader
    (~1.5% of ``bottui limiter disable``'s CPU).
    """
    if command == "playbook":
        return CHECKERS
    return [checker for checker in CHECKERS if checker is not playbook_problems]


def run_checkers(files: CheckedFiles, checkers: list[Checker] | None = None) -> list[FileProblem]:
    """The problems every checker of ``checkers`` (by default :data:`CHECKERS`) found,
    by file, then line.

    A checker that fails is a problem too (named, with its reason), so a
    broken check is never taken for a clean file.
    """
    problems: list[FileProblem] = []
    for checker in CHECKERS if checkers is None else checkers:
        try:
            problems += checker(files)
        except Exception as exc:  # any failure of a check is reported, never raised
            name = getattr(checker, "__name__", "a check")
            problems.append(
                FileProblem(files.locations.config_dir, None, f"{name} failed: {clean(str(exc))}")
            )
    return problems


def keymap_problems(files: CheckedFiles, bindings: Iterable[KnownBinding]) -> list[FileProblem]:
    """The ``[keymap]`` table's mistakes against the app's ``bindings``, on their lines."""
    found = files.config
    if found is None:
        return []
    return [
        FileProblem(files.locations.config_file, found.keymap_lines.get(m.binding_id), m.message)
        for m in check_keymap(found.keymap, bindings)
    ]


def summary(problems: list[FileProblem]) -> str:
    """One line for the start of a command: how many, the first, and where to see all."""
    count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (
        f"warning: {count} in your config files: {first.where}: {first.message}{more}; "
        "bottui config check lists them"
    )


# Check a ``[keymap]`` table against the app's bindings: misspelt ids, keys bound twice.
#
# Pure: the bindings come as plain records (the TUI builds them from its
# ``BINDINGS``: :mod:`bottui.tui.key_registry`), so the start-up toast and
# ``bottui config check`` report exactly the same problems in the same words.
#
# A key is *bound twice* when, in one place of the app (a screen with its
# widgets and the app's own keys, or a dialog), two different binding ids end
# up on the same key and at least one of them got it from the keymap. The
# defaults alone are never reported: a screen's own ``escape`` or the bulk
# run's ``q`` over the app's are meant.


_MODIFIERS: Final = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})

#: Key names besides single characters (Textual's names, ``textual.keys.Keys``).
_NAMED: Final = frozenset(
    {"escape", "enter", "tab", "space", "backspace", "delete", "insert", "home", "end"}
    | {"pageup", "pagedown", "up", "down", "left", "right", "return", "backtab"}
    | {f"f{n}" for n in range(1, 25)}
)


# Textual names some characters its own way (textual.keys.KEY_NAME_REPLACEMENTS).
_REPLACED: Final = {
    "solidus": "slash",
    "reverse_solidus": "backslash",
    "commercial_at": "at",
    "hyphen_minus": "minus",
    "plus_sign": "plus",
    "low_line": "underscore",
}


_UNREPLACED: Final = {value: key for key, value in _REPLACED.items()}


class KnownBinding(NamedTuple):
    """One binding of the app: its id, default keys, and where it is active."""

    binding_id: str
    #: Comma-separated, as in Textual's ``Binding.key``.
    keys: str
    #: The places it is active in (a screen's name, a dialog's, ``app``).
    places: frozenset[str]


class KeymapProblem(NamedTuple):
    """One thing wrong with the keymap: the binding id it is about, and what."""

    binding_id: str
    message: str


def normalize_key(key: str) -> str:
    """Textual's long form of one key: ``?`` -> ``question_mark``, ``Ctrl+X`` -> ``ctrl+x``."""
    key = key.strip()
    *mods, last = key.split("+") if len(key) > 1 else [key]
    if len(last) == 1 and not last.isalnum():
        try:
            name = unicodedata.name(last).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            name = last
        last = _REPLACED.get(name, name)
    elif len(last) > 1:
        last = last.lower()
    return "+".join([*(m.lower() for m in mods), last])


def key_problem(key: str) -> str | None:
    """Why ``key`` (one key, no comma) is not a key Textual knows; None when it is."""
    normal = normalize_key(key)
    if not normal:
        return "an empty key"
    *mods, last = normal.split("+")
    bad = [m for m in mods if m not in _MODIFIERS]
    if bad or not last:
        return f"{clean(key)!r} is not a key (modifiers: {', '.join(sorted(_MODIFIERS))})"
    if len(last) == 1 or last in _NAMED:
        return None
    name = _UNREPLACED.get(last, last).replace("_", " ").upper()
    try:
        unicodedata.lookup(name)
    except KeyError:
        return f"{clean(key)!r} is not a key name (e.g. t, T, ctrl+t, f5, question_mark, ?)"
    return None


def split_keys(keys: str) -> list[str]:
    """The keys of a comma-separated list (a lone ``,`` is the comma key)."""
    if keys.strip() == ",":
        return [","]
    return [part.strip() for part in keys.split(",")]


def check_keymap(
    keymap: Mapping[str, object], bindings: Iterable[KnownBinding]
) -> list[KeymapProblem]:
    """Every problem of ``keymap`` (binding id -> keys), in the keymap's order."""
    known = {b.binding_id: b for b in bindings}
    problems: list[KeymapProblem] = []
    for binding_id, keys in keymap.items():
        shown = clean(binding_id)
        if binding_id not in known:
            close = difflib.get_close_matches(binding_id, list(known), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(KeymapProblem(binding_id, f"unknown binding id {shown!r}{hint}"))
            continue
        if not isinstance(keys, str):
            problems.append(KeymapProblem(binding_id, f"{shown!r}: the keys must be a string"))
            continue
        for key in split_keys(keys):
            why = key_problem(key)
            if why is not None:
                problems.append(KeymapProblem(binding_id, f"{shown!r}: {why}"))
    problems += _bound_twice(keymap, known)
    order = {binding_id: n for n, binding_id in enumerate(keymap)}
    problems.sort(key=lambda p: order.get(p.binding_id, len(order)))
    return problems


def _bound_twice(
    keymap: Mapping[str, object], known: Mapping[str, KnownBinding]
) -> list[KeymapProblem]:
    places: dict[str, dict[str, list[str]]] = {}  # place -> key -> ids
    for binding in known.values():
        mapped = keymap.get(binding.binding_id)
        keys = mapped if isinstance(mapped, str) else binding.keys
        for place in binding.places:
            by_key = places.setdefault(place, {})
            for key in split_keys(keys):
                ids = by_key.setdefault(normalize_key(key), [])
                if binding.binding_id not in ids:
                    ids.append(binding.binding_id)
    reported: set[tuple[str, ...]] = set()
    problems: list[KeymapProblem] = []
    for place, by_key in sorted(places.items()):
        for key, ids in by_key.items():
            mapped = [i for i in ids if i in keymap]
            if len(ids) < 2 or not mapped or (key, *ids) in reported:
                continue
            reported.add((key, *ids))
            others = ", ".join(repr(clean(i)) for i in ids if i != mapped[0])
            problems.append(
                KeymapProblem(
                    mapped[0],
                    f"{clean(mapped[0])!r}: key {clean(key)!r} is bound twice in {place}"
                    f" (also {others}); only one of them would work",
                )
            )
    return problems
