"""``bottui help json``: where the ``--json`` documents are described."""

from __future__ import annotations

from typing import Final

SUMMARY: Final = "the --json and --jsonl documents scripts can rely on"

TEXT: Final = """\
With --json, stdout holds exactly one JSON document and every message goes to
stderr; commands that list many records also take --jsonl (one JSON object per
line). A failure is {"error": {"status", "message", "code", "type", "context"}}
with the command's exit code.

The README's section "JSON output" describes each command's document, field by
field; tests check that the commands write what it says.
"""
