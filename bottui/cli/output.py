"""Where the CLI prints: one JSON document with ``--json``, lines otherwise.

Every line and message goes through :func:`bottui.plaintext.clean` here, so a
command passes untrusted values (server answers, file names, ids, warnings)
as they are and nothing it prints can move the cursor or recolour the
terminal. Ids shown to a person still go through
:func:`~bottui.plaintext.show_id` at the caller, which reveals invisible
characters as well (cleaning its result again changes nothing). The JSON
document is written by :mod:`bottui.store.safe_export` (C1 and bidi controls
escaped). Both streams are wrapped by :func:`bottui.cli.closed_pipe.guard`:
a reader that stops early (``| head``) ends the command quietly.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from bottui.cli.closed_pipe import guard
from bottui.plaintext import clean


class Output:
    """The CLI's two streams, and whether stdout holds one JSON document (``--json``)."""

    def __init__(self, as_json: bool, out: TextIO | None = None, err: TextIO | None = None):
        self.as_json = as_json
        self.out = guard(out or sys.stdout)
        self.err = guard(err or sys.stderr)

    def line(self, text: str = "") -> None:
        """A human line, cleaned: stdout normally, stderr under --json."""
        print(clean(text), file=self.err if self.as_json else self.out)

    def message(self, text: str) -> None:
        """A cleaned message that is never part of the result: always stderr."""
        print(clean(text), file=self.err)

    def document(self, doc: Any) -> None:
        """The one JSON document of --json (C1 and bidi controls escaped)."""
        from bottui.store import safe_export

        safe_export.dump(doc, self.out, indent=2)
        self.out.write("\n")
