"""``bottui help json``: the shape of every ``--json`` document.

The text is :data:`bottui.cli.help_json.TEXT`, written from the schemas the
tests validate real outputs against (docs/reference/json.md is the same).
"""

from __future__ import annotations

from typing import Final

from bottui.cli.help_json import TEXT as _DOCUMENTS

SUMMARY: Final = "the --json and --jsonl documents scripts can rely on"

TEXT: Final = _DOCUMENTS
