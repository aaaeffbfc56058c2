"""This session's revocations, newest first: time, ids, outcome, reportId.

Failed calls are listed too ("failed: ..."), so the table is an honest
account of what the operator tried, not only of what worked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.text import Text

from bottui.tui.textual_private import MeasuredTable
from bottui.tui.tones import tone
from bottui.tui.widgets.revocation_result import UNKNOWN_FAILURE, RevocationRecord
from bottui.tui.widgets.safe import safe_id_text, safe_text

COLUMNS: Final = (
    ("time", "Time (UTC)"),
    ("project", "Project"),
    ("visitor", "Visitor id"),
    ("user", "User account id"),
    ("outcome", "Outcome"),
    ("report", "reportId"),
)
#: Outcome words -> (attributes, colour); any other words are a failure (bold, red).
_OUTCOME_STYLE: Final = {
    "withdrawn": ("bold", "green"),
    "nothing standing": ("bold", ""),
    "unknown": ("bold underline", "yellow"),
    "unknown (retried)": ("bold underline", "yellow"),
    UNKNOWN_FAILURE: ("bold underline", "yellow"),
}


class RevocationHistory(MeasuredTable[Text]):
    """One row per revocation of this session, newest first."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)

    def on_mount(self) -> None:
        for key, heading in COLUMNS:
            self.add_column(heading, key=key)

    def show(self, records: Sequence[RevocationRecord]) -> None:
        """Replace the rows with ``records`` (given oldest first)."""
        self.clear()
        for record in reversed(records):
            words = record.outcome_words
            report = record.revocation.report_id if record.revocation else None
            self.add_row(
                Text(record.at.strftime("%H:%M:%S")),
                safe_id_text(record.project),
                safe_id_text(record.visitor_id or "—"),
                safe_id_text(record.user_account_id or "—"),
                safe_text(words, style=tone(*_OUTCOME_STYLE.get(words, ("bold", "red")))),
                safe_text(report or ""),
            )
