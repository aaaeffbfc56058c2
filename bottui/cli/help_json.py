"""``bottui help json``: the shape of every ``--json`` document (text of the topic).

Written from :data:`bottui.cli.json_schemas.SCHEMAS`, the same data the
tests validate real outputs against, so the help cannot drift from what
bottui prints. The docs' generated page docs/reference/json.md is this text.
"""

from __future__ import annotations

from typing import Final

from bottui.cli.json_schemas import SCHEMAS, describe

_INTRO: Final = """\
JSON output

With --json a command prints exactly one JSON document on stdout; every
message (warnings, progress, "older: ..." hints) goes to stderr. The exit
code is the same as without --json. A command that fails prints the error
document ("any command that fails") instead. journal --jsonl prints one
entry per line, each shaped as "journal --jsonl (each line)". Numbers are JSON
numbers everywhere (thresholds included), times are UTC ISO 8601 strings
("2026-11-24T03:12:05.123456Z"), serverKey is "***" unless --show-secrets.
Every string from a server or a file is cleaned of control characters.
Scripts should ignore fields they do not know: new ones may be added.
"""


def render() -> str:
    """The whole topic: the rules above, then each command's fields."""
    parts = [_INTRO]
    for command, schema in SCHEMAS.items():
        parts.append(f"bottui {command} --json" if not command.startswith("any") else command)
        parts.append("\n".join(describe(schema)) + "\n")
    return "\n".join(parts)


#: The text of ``bottui help json``.
TEXT: Final = render()

__all__ = ["TEXT", "render"]
