"""Did you mean: the closest command or option to a misspelt one.

:func:`suggestion` walks a command line the way argparse does (the top
level, then the chosen command, then its action), and names the first word
that is neither a known option of where it stands nor a known (sub)command,
with the closest known one (difflib). ``bottui --acount acme journal`` is
then "unknown option --acount; did you mean --account?" rather than
argparse's "invalid choice: 'acme'".

It runs only after argparse refused the command line, so a valid one never
pays for it. This module is also the one place that reads argparse's
private attributes (``_actions``, ``_option_string_actions``): argparse has
no public way to list a parser's subcommands and options.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Sequence

from bottui.ops.argv_text import shown

__all__ = ["closest", "options", "shown", "subcommands", "suggestion"]


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name (empty when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Every option string the parser accepts (shown or hidden), with its action."""
    return dict(parser._option_string_actions)


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``word``, if one is close enough to be a likely typo."""
    found = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def suggestion(parser: argparse.ArgumentParser, words: Sequence[str]) -> str | None:
    """One line naming the first unknown command or option in ``words``, or None."""
    current = parser
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            return None
        if word.startswith("--"):
            name, equals, _ = word.partition("=")
            known = options(current)
            action = known.get(name)
            if action is None:
                # argparse takes a unique prefix (--acc for --account).
                starting = {known[o] for o in known if o.startswith(name)}
                if len(starting) > 1:
                    return None
                action = next(iter(starting), None)
            if action is None:
                near = closest(name, [o for o in known if o.startswith("--")])
                return _unknown("option", name, near, current)
            if not equals and action.nargs != 0:
                index += 1  # its value, whatever it looks like
            continue
        if word.startswith("-"):
            continue  # -h, -V, or a value argparse will judge
        commands = subcommands(current)
        if commands:
            if word not in commands:
                kind = "command" if current is parser else "action"
                return _unknown(kind, word, closest(word, commands), current)
            current = commands[word]
    return None


def _unknown(kind: str, word: str, near: str | None, where: argparse.ArgumentParser) -> str:
    place = "" if where.prog == "bottui" else f" for `{where.prog}`"
    hint = f"; did you mean '{near}'?" if near else ""
    return f"unknown {kind} '{shown(word)}'{place}{hint} (see `{where.prog} --help`)"
