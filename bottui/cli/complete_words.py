"""The shells' completion callback: ``bottui __complete SHELL -- WORD... CURRENT``.

The scripts of :mod:`bottui.cli.completion` run this at every Tab with the
words after ``bottui`` (the last one being the word under the cursor) and
read its answer: a first line ``:words`` or ``:files`` (the shell completes
file names itself), then one candidate per line. Which commands, options and
choices exist is read from :func:`~bottui.cli.parser.build_parser` each time,
so a new command completes without an edit here; profile names and the
inventory's ids come from :mod:`bottui.ops.completion_ids` (read-only).

Every candidate passes :func:`safe`: only letters, digits and ``. _ - + @ , % /``
(:data:`SAFE`), not starting with ``-`` (an option's place), at most 200 characters.
An id from a server or a file holding anything else (``$``, backticks,
quotes, spaces, ``;``, ``*``, a backslash, a control character, a colon...)
is left out, so a script could not expand it even by mistake. The callback
never prints a traceback, never touches the network or a token, and writes
nothing; whatever goes wrong, it answers nothing and exits 0.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import argparse

    from bottui.store.files import Locations
    from bottui.store.inventory.peek import Kind

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


#: The kinds the inventory answers, each its own :data:`~bottui.store.inventory.peek.Kind`.
_ID_KINDS: Final[dict[str, Kind]] = {
    "accounts": "accounts",
    "projects": "projects",
    "limiters": "limiters",
    "dimensions": "dimensions",
}


def safe(word: str) -> bool:
    """True when ``word`` holds only :data:`SAFE` characters."""
    return SAFE.fullmatch(word) is not None


def _printable(word: str) -> bool:
    """A candidate as printed: a safe value, an option, or an option's ``--name=`` and a value."""
    _, eq, value = word.partition("=")
    return safe(value) if eq else safe(word.lstrip("-"))


@dataclass
class _Line:
    """What the words before the cursor say: where in the parser tree, with which values."""

    parser: argparse.ArgumentParser
    path: list[str] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)
    positional: int = 0
    pending: argparse.Action | None = None
    lost: bool = False


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def _option(parser: argparse.ArgumentParser, word: str) -> argparse.Action | None:
    """The option ``word`` names, exactly or by a unique prefix (argparse's abbreviation)."""
    found = parser._option_string_actions.get(word)
    if found is not None or not word.startswith("--"):
        return found
    matches = {a for s, a in parser._option_string_actions.items() if s.startswith(word)}
    return matches.pop() if len(matches) == 1 else None


def _positionals(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not a.option_strings]


def _subcommands(action: argparse.Action) -> dict[str, argparse.ArgumentParser] | None:
    import argparse

    if isinstance(action, argparse._SubParsersAction):
        choices: dict[str, argparse.ArgumentParser] = action.choices
        return choices
    return None


def _read(parser: argparse.ArgumentParser, words: Sequence[str]) -> _Line:
    """Walk the words before the cursor as argparse would, remembering the values seen."""
    line = _Line(parser)
    only_positionals = False
    for word in words:
        if line.pending is not None:
            if word != "=":  # bash splits --profile=prod at the '='
                line.values[line.pending.dest] = word
                line.pending = None
            continue
        if word == "--" and not only_positionals:
            only_positionals = True
        elif word.startswith("-") and len(word) > 1 and not only_positionals:
            name, eq, value = word.partition("=")
            action = _option(line.parser, name)
            if action is not None and _takes_value(action):
                if eq:
                    line.values[action.dest] = value
                else:
                    line.pending = action
        else:
            _positional(line, word)
        if line.lost:
            break
    return line


def _positional(line: _Line, word: str) -> None:
    actions = _positionals(line.parser)
    if line.positional >= len(actions):
        return
    action = actions[line.positional]
    commands = _subcommands(action)
    if commands is None:
        line.values[action.dest] = word
        if action.nargs in (None, 1):
            line.positional += 1
    elif word in commands:
        line.parser, line.positional = commands[word], 0
        line.path.append(word)
    else:
        line.lost = True  # not a command: nothing sensible to offer


def _visible_options(parser: argparse.ArgumentParser) -> list[str]:
    import argparse

    return [
        option
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        for option in action.option_strings
    ]


def _visible_commands(action: argparse.Action) -> list[str]:
    """The subcommands a ``--help`` lists (a hidden one has no help entry)."""
    import argparse

    if isinstance(action, argparse._SubParsersAction):
        return [choice.dest for choice in action._choices_actions]
    return []


@dataclass(frozen=True)
class Answer:
    """The callback's answer: ``files`` (the shell lists file names) or these words."""

    words: list[str]
    files: bool = False


def answer(words: Sequence[str], locations: Locations) -> Answer:
    """The candidates for the last of ``words`` (the words after ``bottui``)."""
    from bottui.cli.parser import build_parser

    *before, current = list(words) or [""]
    line = _read(build_parser(), before)
    if line.lost:
        return Answer([])
    if line.pending is not None:
        return _values(line, line.pending, current, "", locations)
    if current.startswith("--") and "=" in current:
        name, _, value = current.partition("=")
        action = _option(line.parser, name)
        if action is None or not _takes_value(action):
            return Answer([])
        return _values(line, action, value, name + "=", locations)
    if current.startswith("-"):
        return Answer([o for o in _visible_options(line.parser) if o.startswith(current)])
    actions = _positionals(line.parser)
    if line.positional < len(actions):
        action = actions[line.positional]
        if _subcommands(action) is not None:
            return Answer([c for c in _visible_commands(action) if c.startswith(current)])
        return _values(line, action, current, "", locations)
    # Nothing positional is left: the options are all there is to type.
    return Answer(_visible_options(line.parser) if current == "" else [])


def _kind(line: _Line, action: argparse.Action) -> str | None:
    if line.path[:1] == ["profile"] and line.path[1:] != ["add"] and action.dest == "name":
        return "profiles"
    for key in (action.dest, str(action.metavar or "").lower()):
        if key in _KINDS:
            return _KINDS[key]
    return None


def _values(
    line: _Line, action: argparse.Action, current: str, before: str, locations: Locations
) -> Answer:
    """The values ``action`` may take that start with ``current`` (each after ``before``)."""
    from bottui.ops.completion_ids import known_ids, profile_names

    kind = _kind(line, action)
    if kind == "files":
        return Answer([], files=True)
    found: list[str] = []
    if action.choices is not None and _subcommands(action) is None:
        found = [str(choice) for choice in action.choices if str(choice).startswith(current)]
    elif kind == "profiles":
        found = profile_names(locations, current)
    elif kind in _ID_KINDS:
        found = known_ids(
            locations,
            _ID_KINDS[kind],
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
        from bottui.store.files import Locations

        found = answer(rest, Locations.default())
        lines = [":files" if found.files else ":words"]
        lines += sorted({word for word in found.words if _printable(word)})
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BaseException:  # a Tab never shows a traceback (nor a ^C one)
        return 0
    return 0


__all__ = ["SAFE", "SHELLS", "Answer", "answer", "callback", "safe"]
