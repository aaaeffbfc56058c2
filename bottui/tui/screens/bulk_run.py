"""A bulk revocation under way, then its summary.

The Grants screen creates the :class:`~bottui.ops.bulk.BulkRevocation`,
pushes this dialog and runs the engine in its worker; the engine calls
:meth:`BulkRunDialog.show_progress` on the event loop (throttled to its
``progress_interval``). The Cancel button has the focus: it, or escape,
stops the run (no new ids; the requests in flight finish and are recorded);
pressed again it abandons the requests in flight. At the end the dialog
shows the summary, and offers Resume when some ids are not settled.
"""

from __future__ import annotations

from typing import ClassVar, Final, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, ProgressBar, Static

from bottui.ops.bulk import BulkProgress, BulkRevocation, BulkSummary
from bottui.tui.error_view import EXPECTED_ERRORS, error_words
from bottui.tui.screens.bulk_confirm import BulkOrder
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.widgets.bulk_words import (
    counts_line,
    plural,
    progress_line,
    state_line,
    summary_lines,
    unsettled,
)
from bottui.tui.widgets.safe import join, safe, safe_id

STOP: Final = "Cancel"
STOPPING: Final = "Stopping… (press again to abandon in-flight)"
ABANDONING: Final = "Abandoning…"
RunResult = Literal["resume"] | None


class BulkRunDialog(_Dialog):
    """Progress bar, rate, ETA and counts of a run; then the summary.

    Returns ``"resume"`` when the operator asks to resume the run, else None.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_or_close", "Stop the run / close", id="bulk.stop"),
        Binding("q", "no_quit", "Quit (after the run)", show=False, id="bulk.no_quit"),
    ]

    def __init__(self, order: BulkOrder) -> None:
        super().__init__()
        self.order = order
        #: The engine, set by the screen that runs it.
        self.run: BulkRevocation | None = None
        self.summary: BulkSummary | None = None
        self.failure: BaseException | None = None
        #: How many times the operator asked to stop (1: stop, 2: abandon).
        self.stops = 0
        self._latest: BulkProgress | None = None
        # Set first thing in on_mount: is_mounted is still False while on_mount runs.
        self._ready = False

    @property
    def finished(self) -> bool:
        """True once the run ended (summary or failure)."""
        return self.summary is not None or self.failure is not None

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
                yield Button(Content(STOP), id="bulk-stop", variant="warning")
                resume_button = Button(Content("Resume…"), id="bulk-resume-run")
                resume_button.display = False
                yield resume_button
                close = Button(Content("Close"), id="bulk-close", variant="primary")
                close.display = False
                yield close

    def on_mount(self) -> None:
        self._ready = True
        self.query_one("#bulk-stop", Button).focus()
        if self._latest is not None:
            self._show(self._latest)
        if self.summary is not None:
            self.show_summary(self.summary)
        elif self.failure is not None:
            self.show_failure(self.failure)

    # -- progress -----------------------------------------------------------------------

    def show_progress(self, progress: BulkProgress) -> None:
        """The engine's progress callback (on the event loop; must be quick)."""
        self._latest = progress
        if self._ready and not self.finished:
            self._show(progress)

    def _show(self, progress: BulkProgress) -> None:
        total = progress.total if progress.total is not None else self.order.plan.count
        self.query_one("#bulk-bar", ProgressBar).update(
            total=max(total, progress.done, 1), progress=progress.done
        )
        self.query_one("#bulk-line", Static).update(progress_line(progress))
        self.query_one("#bulk-counts", Static).update(counts_line(progress))
        state = state_line(progress, abandoning=self.stops > 1)
        widget = self.query_one("#bulk-state", Static)
        widget.update(state)
        widget.display = bool(state.plain)

    # -- stopping -----------------------------------------------------------------------

    def stop(self) -> None:
        """First call: stop taking ids; second: abandon the requests in flight."""
        run = self.run
        if run is None or self.finished or self.stops >= 2:
            return
        self.stops += 1
        run.cancel()
        button = self.query_one("#bulk-stop", Button)
        if self.stops == 1:
            button.label = Content(STOPPING)
        else:
            button.label = Content(ABANDONING)
            button.disabled = True
        button.refresh(layout=True)  # Button.label does not re-measure the width itself
        self.show_progress(run.progress())

    def action_stop_or_close(self) -> None:
        """Escape: stop the run while it runs, close the dialog once it ended."""
        if self.finished:
            self.dismiss(None)
        else:
            self.stop()

    async def action_no_quit(self) -> None:
        """``q`` while a run is under way would abandon it: say how to stop instead."""
        if self.finished:
            await self.app.action_quit()
            return
        self.notify(
            "A bulk revocation is under way: escape stops it first (ctrl+q quits at once).",
            markup=False,
        )

    # -- the end --------------------------------------------------------------------------

    def show_summary(self, summary: BulkSummary) -> None:
        """Replace the progress with the summary of the run."""
        self.summary = summary
        if not self._ready:
            return
        stopped = summary.interrupted or summary.stopped_by is not None
        title = "Bulk revocation stopped" if stopped else "Bulk revocation done"
        self.query_one("#bulk-run-title", Label).update(
            join(title, " · ", safe_id(self.order.account), " / ", safe_id(self.order.project))
        )
        lines = summary_lines(summary, abandoned=self.stops > 1)
        self.query_one("#bulk-summary", Static).update(Content("\n").join(lines))
        self._end(resume=summary.journaled and unsettled(summary) > 0)

    def show_failure(self, error: BaseException) -> None:
        """The run could not start or broke off; the app's toast says why too."""
        self.failure = error
        if not self._ready:
            return
        sent = self._latest.sent if self._latest is not None else 0
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
        self._end(resume=False)

    def _end(self, *, resume: bool) -> None:
        self.query_one("#bulk-progress").display = False
        self.query_one("#bulk-summary-box").display = True
        self.query_one("#bulk-stop").display = False
        self.query_one("#bulk-resume-run").display = resume
        close = self.query_one("#bulk-close", Button)
        close.display = True
        close.focus()

    @on(Button.Pressed, "#bulk-stop")
    def _stop_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.stop()

    @on(Button.Pressed, "#bulk-close")
    def _close(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    @on(Button.Pressed, "#bulk-resume-run")
    def _resume(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("resume")
