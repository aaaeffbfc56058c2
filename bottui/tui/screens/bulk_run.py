"""A bulk revocation's screen: its progress, then its summary; a view of the app's run.

The run is the app's (:class:`~bottui.tui.bulk_runs.BulkRuns`): it goes on
when this screen is closed (escape or Hide; the header keeps its progress)
and ``B`` opens it again. Stop stops the run (no new ids; the requests in
flight finish and are recorded); pressed again it abandons the requests in
flight. At the end it shows the summary with the failed and unknown ids,
offers Export (every id's result, as ``revoke --output`` writes it) and
Resume when some ids are not settled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, ProgressBar, Static

from bottui.ops.bulk.report import BulkProgress, BulkSummary
from bottui.tui.error_view import EXPECTED_ERRORS, error_words
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.widgets.bulk_words import (
    counts_line,
    plural,
    problem_lines,
    progress_line,
    state_line,
    summary_lines,
    unsettled,
)
from bottui.tui.widgets.safe import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.tui.bulk_runs import BackgroundRun, BulkRuns

STOP: Final = "Stop"
STOPPING: Final = "Stopping… (press again to abandon in-flight)"
ABANDONING: Final = "Abandoning…"
HIDE: Final = "Hide (the run goes on)"
RunResult = Literal["resume"] | None


class BulkRunDialog(_Dialog):
    """Progress bar, rate, ETA and counts of the app's bulk run; then its summary.

    Returns ``"resume"`` when the operator asks to resume the run, else None.

    Args:
        runs: The app's bulk runs (stopping goes through them).
        run: The run shown.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Hide (the run goes on) / close", id="bulk.hide"),
    ]

    def __init__(self, runs: BulkRuns, run: BackgroundRun) -> None:
        super().__init__()
        self.runs = runs
        self.background = run
        self.order = run.order
        # Set first thing in on_mount: is_mounted is still False while on_mount runs.
        self._ready = False

    @property
    def summary(self) -> BulkSummary | None:
        """The run's summary, once it ended."""
        return self.background.summary

    @property
    def finished(self) -> bool:
        """True once the run ended (summary or failure)."""
        return self.background.finished

    def compose(self) -> ComposeResult:
        order = self.order
        with Vertical(id="bulk-run-box"):
            yield Label(
                join("Revoking grants · ", safe_id(order.account), " / ", safe_id(order.project)),
                id="bulk-run-title",
                classes="dialog-title",
            )
            resume = " · resume" if order.resume else ""
            yield Static(
                join(
                    "From ",
                    order.origin(),
                    f" · {plural(order.plan.count, 'id')} · concurrency {order.concurrency}",
                    resume,
                ),
                id="bulk-run-origin",
            )
            with Vertical(id="bulk-progress"):
                yield ProgressBar(total=max(order.plan.count, 1), show_eta=False, id="bulk-bar")
                yield Static(Content("Starting…"), id="bulk-line")
                yield Static("", id="bulk-counts")
                state = Static("", id="bulk-state")
                state.display = False
                yield state
            summary_box = VerticalScroll(id="bulk-summary-box")
            summary_box.display = False
            with summary_box:
                yield Static("", id="bulk-summary")
            with Horizontal(classes="dialog-buttons"):
                yield Button(Content(HIDE), id="bulk-hide")
                yield Button(Content(STOP), id="bulk-stop", variant="warning")
                for name, words in (("bulk-export", "Export…"), ("bulk-resume-run", "Resume…")):
                    button = Button(Content(words), id=name)
                    button.display = False
                    yield button
                close = Button(Content("Close"), id="bulk-close", variant="primary")
                close.display = False
                yield close

    def on_mount(self) -> None:
        self._ready = True
        self.runs.view = self
        # Hide has the focus: Enter leaves the run going, never stops it.
        self.query_one("#bulk-hide", Button).focus()
        run = self.background
        if run.stops:
            self._show_stops()
        if run.progress is not None:
            self._show(run.progress)
        if run.finished:
            self.show_end()

    def on_unmount(self) -> None:
        if self.runs.view is self:
            self.runs.view = None

    # -- progress -----------------------------------------------------------------------

    def show_progress(self, progress: BulkProgress) -> None:
        """A progress snapshot of the run (on the event loop; must be quick)."""
        if self._ready and not self.finished:
            self._show(progress)

    def _show(self, progress: BulkProgress) -> None:
        total = progress.total if progress.total is not None else self.order.plan.count
        self.query_one("#bulk-bar", ProgressBar).update(
            total=max(total, progress.done, 1), progress=progress.done
        )
        self.query_one("#bulk-line", Static).update(progress_line(progress))
        self.query_one("#bulk-counts", Static).update(counts_line(progress))
        state = state_line(progress, abandoning=self.background.stops > 1)
        widget = self.query_one("#bulk-state", Static)
        widget.update(state)
        widget.display = bool(state.plain)

    # -- stopping -----------------------------------------------------------------------

    def stop(self) -> None:
        """First call: stop taking ids; second: abandon the requests in flight."""
        self.runs.stop()
        self._show_stops()

    def _show_stops(self) -> None:
        button = self.query_one("#bulk-stop", Button)
        stops = self.background.stops
        if stops == 1:
            button.label = Content(STOPPING)
        elif stops > 1:
            button.label = Content(ABANDONING)
            button.disabled = True
        button.refresh(layout=True)  # Button.label does not re-measure the width itself

    # -- the end --------------------------------------------------------------------------

    def show_end(self) -> None:
        """The run ended: its summary, or why it failed."""
        if not self._ready:
            return
        run = self.background
        run.seen = True
        self.runs.redraw()
        if run.summary is not None:
            self._show_summary(run.summary)
        elif run.failure is not None:
            self._show_failure(run.failure)

    def _show_summary(self, summary: BulkSummary) -> None:
        stopped = summary.interrupted or summary.stopped_by is not None
        title = "Bulk revocation stopped" if stopped else "Bulk revocation done"
        self.query_one("#bulk-run-title", Label).update(
            join(title, " · ", safe_id(self.order.account), " / ", safe_id(self.order.project))
        )
        spool = self.background.spool
        lines = summary_lines(summary, abandoned=self.background.stops > 1)
        lines += problem_lines(spool.problems, spool.problem_count)
        self.query_one("#bulk-summary", Static).update(Content("\n").join(lines))
        self._end(resume=summary.journaled and unsettled(summary) > 0, export=spool.rows > 0)

    def _show_failure(self, error: BaseException) -> None:
        progress = self.background.progress
        sent = progress.sent if progress is not None else 0
        if isinstance(error, EXPECTED_ERRORS):
            reason = error_words(error)
        else:
            reason = join("Unexpected error: ", safe(type(error).__name__))
        after = (
            "Nothing was sent."
            if sent == 0
            else f"{plural(sent, 'request')} had been sent: the journal has each one."
        )
        self.query_one("#bulk-run-title", Label).update(Content("Bulk revocation failed"))
        self.query_one("#bulk-summary", Static).update(join(reason, "\n", after))
        self._end(resume=False, export=False)

    def _end(self, *, resume: bool, export: bool) -> None:
        self.query_one("#bulk-progress").display = False
        self.query_one("#bulk-summary-box").display = True
        self.query_one("#bulk-stop").display = False
        self.query_one("#bulk-hide").display = False
        self.query_one("#bulk-export").display = export
        self.query_one("#bulk-resume-run").display = resume
        close = self.query_one("#bulk-close", Button)
        close.display = True
        close.focus()

    @on(Button.Pressed, "#bulk-stop")
    def _stop_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.stop()

    @on(Button.Pressed, "#bulk-hide")
    @on(Button.Pressed, "#bulk-close")
    def _close(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    @on(Button.Pressed, "#bulk-export")
    def _export(self, event: Button.Pressed) -> None:
        event.stop()
        from bottui.tui.screens.bulk_export import ExportDialog

        self.app.push_screen(ExportDialog(self.background))

    @on(Button.Pressed, "#bulk-resume-run")
    def _resume(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("resume")
