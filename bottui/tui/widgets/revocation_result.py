"""What a revocation did, said plainly: the result panel and its words.

Four outcomes, never blurred: withdrawn; nothing was standing (not an
error); unknown (the service did not say); unknown after a retry (an
earlier attempt may have withdrawn the grant before the connection failed,
so the final "nothing standing" proves nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from bottui.api.models import Revocation, RevocationOutcome
from bottui.tui.error_log import Failure
from bottui.tui.widgets.attempt_failure import (
    FAILED_CLASS,
    failure_headline,
    failure_lines,
)
from bottui.tui.widgets.safe import join, safe, safe_id

#: Outcome -> (headline, explanation, CSS class).
OUTCOMES: Final[dict[RevocationOutcome, tuple[str, str, str]]] = {
    RevocationOutcome.WITHDRAWN: (
        "Withdrawn",
        "A grant stood on this identity and the service withdrew it.",
        "result-withdrawn",
    ),
    RevocationOutcome.NOTHING_STANDING: (
        "Nothing was standing — not an error",
        "No grant stood on this identity; the service withdrew nothing.",
        "result-nothing",
    ),
    RevocationOutcome.UNKNOWN: (
        "Unknown: the service did not say",
        "The answer did not say whether a grant was withdrawn; keep the reportId.",
        "result-unknown",
    ),
    RevocationOutcome.UNKNOWN_RETRIED: (
        "Unknown (retried): an earlier attempt may have withdrawn it before the connection failed",
        "The last attempt found nothing standing, but an earlier one may have reached "
        "the service first.",
        "result-unknown",
    ),
}
#: Short outcome words for the history table.
SHORT: Final[dict[RevocationOutcome, str]] = {
    RevocationOutcome.WITHDRAWN: "withdrawn",
    RevocationOutcome.NOTHING_STANDING: "nothing standing",
    RevocationOutcome.UNKNOWN: "unknown",
    RevocationOutcome.UNKNOWN_RETRIED: "unknown (retried)",
}
RESULT_CLASSES: Final = frozenset({FAILED_CLASS, *(css for _, _, css in OUTCOMES.values())})


#: The history's words for a request that may have arrived unanswered.
UNKNOWN_FAILURE: Final = "unknown: may have been applied"


@dataclass(frozen=True)
class RevocationRecord:
    """One revocation of this session: what was asked and what came back.

    ``revocation`` is None when the call failed; ``error`` then says how
    (a few words for the history) and ``failure`` says it whole (the panel).
    """

    at: datetime
    account: str
    project: str
    visitor_id: str | None
    user_account_id: str | None
    revocation: Revocation | None = None
    error: str | None = None
    journal_id: int | None = None
    failure: Failure | None = None

    @property
    def outcome_words(self) -> str:
        """The history table's outcome cell."""
        if self.revocation is None:
            if self.error == UNKNOWN_FAILURE:  # not failed: it may have been applied
                return UNKNOWN_FAILURE
            return f"failed: {self.error or 'error'}"
        return SHORT[self.revocation.outcome]


def notes(record: RevocationRecord) -> str:
    """Retries and the journal entry, for the panel's border."""
    out: list[str] = []
    if record.revocation is not None and record.revocation.attempts > 1:
        out.append(f"sent {record.revocation.attempts} times")
    if record.journal_id is not None:
        out.append(f"journal #{record.journal_id}")
    return " · ".join(out)


def subject_line(visitor_id: str | None, user_account_id: str | None) -> Content:
    """``visitor id X · user account id Y`` (only the ids given)."""
    parts: list[Content] = []
    if visitor_id is not None:
        parts.append(join("visitor id ", safe_id(visitor_id)))
    if user_account_id is not None:
        parts.append(join("user account id ", safe_id(user_account_id)))
    return Content(" · ").join(parts)


def result_lines(record: RevocationRecord) -> list[Content]:
    """The lines under the headline of an answered revocation."""
    revocation = record.revocation
    assert revocation is not None
    explanation = OUTCOMES[revocation.outcome][1]
    bold = "bold"
    lines = [Content(explanation), where_line(record)]
    fields: list[Content] = []
    if revocation.report_id is not None:
        fields.append(join(Content.styled("reportId: ", bold), safe(revocation.report_id)))
    if revocation.grant_expires_at is not None:
        fields.append(
            join(Content.styled("grantExpiresAt: ", bold), safe(revocation.grant_expires_at))
        )
    if revocation.grant_remaining_attempts is not None:
        fields.append(
            join(
                Content.styled("grantRemainingAttempts: ", bold),
                str(revocation.grant_remaining_attempts),
            )
        )
    if fields:
        lines.append(Content("  ").join(fields))
    return lines


def where_line(record: RevocationRecord) -> Content:
    """``visitor id X · project A / P``: what the attempt was about."""
    return join(
        subject_line(record.visitor_id, record.user_account_id),
        " · project ",
        safe_id(record.account),
        " / ",
        safe_id(record.project),
    )


class RevocationResult(Vertical):
    """The current project's latest revocation attempt (hidden until there is one).

    Answered or not: a failure replaces an earlier success, so the panel
    never says "Withdrawn" about an attempt that was not the last.
    """

    def compose(self) -> ComposeResult:
        yield Static(id="result-headline")
        yield Static(id="result-body")

    def on_mount(self) -> None:
        self.border_title = "Result"
        self.display = False

    def show(self, record: RevocationRecord | None) -> None:
        """Show a revocation attempt, styled by its outcome (None: hide the panel)."""
        if record is None:
            self.display = False
            return
        headline = self.query_one("#result-headline", Static)
        if record.revocation is None:
            failure = record.failure or Failure(record.error or "error", "", False, "")
            text, css = failure_headline(failure)
            lines = [where_line(record), *failure_lines(failure)]
            self.border_title = f"Result · attempt at {record.at.strftime('%H:%M:%S')} UTC"
        else:
            words, _, css = OUTCOMES[record.revocation.outcome]
            text, lines = Content(words), result_lines(record)
            self.border_title = "Result"
        headline.update(text)
        for name in RESULT_CLASSES:
            headline.set_class(name == css, name)
        self.query_one("#result-body", Static).update(Content("\n").join(lines))
        self.border_subtitle = notes(record)
        self.display = True
