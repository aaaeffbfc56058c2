"""The topics of ``bottui help TOPIC``: each a short text in its own module.

A topic module holds ``SUMMARY`` (one line, shown by ``bottui help``) and
``TEXT`` (what ``bottui help TOPIC`` prints). To add one, write the module
and name it in :data:`TOPICS`; nothing else changes.
"""

from __future__ import annotations

import importlib
from typing import Final

#: Topic name (as typed) -> module of bottui.cli.topics.
TOPICS: Final[dict[str, str]] = {
    "exit-codes": "exit_codes",
    "tokens": "tokens",
    "environment": "environment",
    "team": "team",
    "playbooks": "playbooks",
    "json": "json_output",
}


def summary(name: str) -> str:
    """The topic's one line."""
    found: str = importlib.import_module(f"{__name__}.{TOPICS[name]}").SUMMARY
    return found


def text(name: str) -> str:
    """The topic's text."""
    found: str = importlib.import_module(f"{__name__}.{TOPICS[name]}").TEXT
    return found
