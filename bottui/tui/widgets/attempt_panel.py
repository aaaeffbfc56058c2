"""A result panel for one kind of change: the current project's latest attempt.

A headline (what happened, in words that read the same without colour)
and the lines under it; a success whose value was changed since is shown as
history ("at 20:56 UTC · since changed"), #27. A failure shows the failure's words
(:mod:`bottui.tui.widgets.attempt_failure`); hidden until there is an attempt.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from bottui.tui.error_log import Failure
from bottui.tui.widgets.attempt_failure import (
    FAILED_CLASS,
    UNKNOWN_CLASS,
    failure_headline,
    failure_lines,
)

SUCCESS_CLASS = "result-withdrawn"  # the Grants panel's success style


class AttemptPanel(Vertical):
    """The latest attempt: answered (``show_success``) or not (``show_failure``)."""

    DEFAULT_CSS = """
    AttemptPanel { height: auto; }
    AttemptPanel > Static { height: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static(classes="attempt-headline")
        yield Static(classes="attempt-body")

    def on_mount(self) -> None:
        self.display = False

    def _show(
        self, headline: Content, css: str, lines: Sequence[Content], at: str, history: bool = False
    ) -> None:
        self.border_title = (
            f"Result · at {at} UTC · since changed" if history else f"Result · {at} UTC"
        )
        head = self.query_one(".attempt-headline", Static)
        head.update(headline)
        for name in (SUCCESS_CLASS, FAILED_CLASS, UNKNOWN_CLASS):
            head.set_class(name == css, name)
        self.query_one(".attempt-body", Static).update(Content("\n").join(lines))
        self.display = True

    def show_success(
        self, headline: Content, lines: Sequence[Content], at: str, *, history: bool = False
    ) -> None:
        """An answered attempt (made at ``at``, UTC).

        ``history``: what it set was changed since; the headline says what is
        now and the title says it is history, never a state the table contradicts.
        """
        self._show(headline, "" if history else SUCCESS_CLASS, lines, at, history)

    def show_failure(self, failure: Failure, where: Content, at: str) -> None:
        """A failed or unknown attempt on ``where`` (made at ``at``, UTC)."""
        headline, css = failure_headline(failure)
        self._show(headline, css, [where, *failure_lines(failure)], at)

    def hide(self) -> None:
        """Nothing to show (another project, or none)."""
        self.display = False
