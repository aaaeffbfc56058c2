"""Bulk revocation in the TUI: the dialog, its order and confirmation, the run's screen, the export.

A :class:`BulkOrder` is what the bulk dialog returns: the input (already
read once for its hash and line count), its dry-run plan, the concurrency
and whether to resume. :func:`bulk_prompt` puts it through the one
confirmation path (:meth:`~bottui.tui.services.TuiServices.decided`):
read-only refuses, dry run shows the first requests, a protected profile
wants the project id typed, otherwise focus on Cancel.

Export (:class:`BulkExportDialog`) writes a bulk run's per-id results to a file, as
``bottui revoke --output`` writes it.

A path prompt (``.csv`` or ``.jsonl``; a relative path is taken from the
directory bottui was started in). An existing file is replaced only after
a confirmation with Cancel focused. The rows are those of ``--output``
(:class:`~bottui.ops.bulk.results.ResultsFile`: every value cleaned, ids
exactly as sent), written off the event loop
(:meth:`~bottui.ops.bulk.results.ResultsSpool.export`).

A bulk revocation's screen (:class:`BulkRunDialog`): its progress, then its summary;
a view of the app's run.

The run is the app's (:class:`~bottui.tui.bulk_runs.BulkRuns`): it goes on
when this screen is closed (escape or Hide; the header keeps its progress)
and ``B`` opens it again. Stop stops the run (no new ids; the requests in
flight finish and are recorded); pressed again it abandons the requests in
flight. At the end it shows the summary with the failed and unknown ids,
offers Export (every id's result, as ``revoke --output`` writes it) and
Resume when some ids are not settled.

The bulk revocation dialog (:class:`BulkDialog`): paste ids or load a file, preview, confirm.

The operator pastes ids (one visitor id per line, or CSV with a header
naming ``visitorId`` and/or ``userAccountId``) or gives a file path. As the
input changes, :func:`bottui.ops.bulk.plan_bulk` reads it in a thread (it
sends nothing) and the dialog shows how many lines and ids it holds and
which lines are invalid, with their numbers and reasons. Start goes through
the app's confirmation (:func:`~bottui.tui.screens.bulk_dialogs.bulk_prompt`)
on top of this dialog, so Cancel there comes back here with the input
intact; once confirmed the dialog returns a :class:`BulkOrder` and the
app runs it in the background (:mod:`bottui.tui.bulk_runs`).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

import msgspec
from msgspec.structs import replace
from textual import events, on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Label, ProgressBar, Static, TextArea

from bottui.api.errors import BottuiError
from bottui.ops.bulk.engine import BulkPlan, plan_bulk
from bottui.ops.bulk.input import BulkSource
from bottui.ops.bulk.report import DEFAULT_CONCURRENCY, MAX_CONCURRENCY, BulkProgress, BulkSummary
from bottui.ops.bulk.results import FORMATS
from bottui.ops.session import Session
from bottui.plaintext import clean
from bottui.store.executor import run_blocking
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.error_report import EXPECTED_ERRORS, error_text, error_words
from bottui.tui.screens.base import project_words, say
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import ExportDialog, _Dialog
from bottui.tui.screens.project_dialogs import StateCheckbox
from bottui.tui.services import services_of
from bottui.tui.widgets.bulk_words import (
    counts_line,
    plural,
    preview_lines,
    problem_lines,
    progress_line,
    state_line,
    stopped,
    summary_lines,
    unsettled,
)
from bottui.tui.widgets.untrusted_text import PlainInput, join, refuse_paste, safe, safe_id

if TYPE_CHECKING:
    from bottui.tui.bulk_runs import BackgroundRun, BulkRuns
    from bottui.tui.services import TuiServices


#: Requests a dry run shows in full (the plan keeps a few more).
DRY_RUN_SHOWN: Final = 5


class BulkOrder(msgspec.Struct, frozen=True):
    """One bulk revocation, ready to confirm and run.

    Attributes:
        account: The account id.
        project: The project id.
        source: The ids (pasted text or a file).
        plan: What :func:`bottui.ops.bulk.plan_bulk` found in it; nothing sent.
        concurrency: Requests in flight at most.
        path: The file the ids come from, as given; None for pasted text.
        resume: Skip the ids an earlier run of the same input settled.
        settled: Ids an earlier run settled, when known (for the resume wording).
    """

    account: str
    project: str
    source: BulkSource
    plan: BulkPlan
    concurrency: int
    path: str | None = None
    resume: bool = False
    settled: int | None = None
    #: Why, as typed in the confirmation (journaled once per chunk).
    reason: str | None = None

    def origin(self) -> Content:
        """``pasted text`` or ``file /path/to/ids.txt`` (the path made safe)."""
        return Content("pasted text") if self.path is None else join("file ", safe(self.path))


def confirm_title(order: BulkOrder) -> str:
    """``Revoke 2 grants?``; a resume says that settled ids are skipped."""
    if order.resume:
        return f"Resume: revoke the grants of up to {plural(order.plan.count, 'id')}?"
    return f"Revoke {plural(order.plan.count, 'grant')}?"


def confirm_body(order: BulkOrder, project: Content) -> Content:
    """Where (``project``: :func:`project_words`), how many, from what, and what happens
    to the rest."""
    body = join(
        f"Withdraw the challenge grants of {plural(order.plan.count, 'id')} from ",
        order.origin(),
        "\nin project ",
        project,
        ".",
    )
    notes: list[str] = []
    if order.plan.invalid_count:
        notes.append(f"{plural(order.plan.invalid_count, 'invalid line')} will not be sent.")
    if order.plan.duplicates:
        notes.append(f"{plural(order.plan.duplicates, 'repeated line')} sent once.")
    if order.resume:
        settled = "" if order.settled is None else f" ({order.settled:,} last time)"
        notes.append(
            f"Resume: ids an earlier run of this input settled{settled} are skipped; "
            "the others are sent."
        )
    notes.append(
        f"{order.concurrency} requests in flight at most. Each id goes to the journal. "
        "The run goes on in the background (B shows it); Stop stops it."
    )
    return join(body, "\n", "\n".join(notes))


def bulk_prompt(services: TuiServices, order: BulkOrder) -> ChangePrompt:
    """The confirmation of ``order`` (under dry run: its first requests)."""
    count = order.plan.count
    return ChangePrompt(
        title=confirm_title(order),
        body=confirm_body(order, project_words(services, order.account, order.project)),
        confirm_label="Resume" if order.resume else f"Revoke {plural(count, 'grant')}",
        project_id=order.project,
        plan=lambda: [request for _, request in order.plan.requests[:DRY_RUN_SHOWN]],
        decision=(
            f"{'resume: ' if order.resume else ''}revoke the challenge grants of "
            f"{plural(count, 'id')} in {order.account}/{order.project}"
        ),
    )


def default_name(run: BackgroundRun) -> str:
    """``bulk-run-12.csv`` (the journal's run id), else ``bulk-results.csv``."""
    run_id = run.summary.run_id if run.summary is not None else None
    return "bulk-results.csv" if run_id is None else f"bulk-run-{run_id}.csv"


class BulkExportDialog(_Dialog, ExportDialog):
    """Ask where to write a run's per-id results; write them; say where they went.

    Args:
        run: The ended run whose results are exported.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Close", id="bulk_export.close"),
    ]
    COMPACT = True

    def __init__(self, run: BackgroundRun) -> None:
        super().__init__(
            "Export per-id results",
            f"{plural(run.spool.rows, 'row')}, one per id: line, ids, outcome, reportId, "
            "status, error (as bottui revoke --output writes them). A .csv or .jsonl file; "
            "a relative path starts in the directory bottui was started in.",
            default_name(run),
        )
        self.run = run
        self._busy = False

    def problem(self, path: Path, raw: str) -> Content | None:
        if path.suffix.lower() not in FORMATS:
            return Content("Name it … .csv or … .jsonl (the two formats --output writes).")
        return None

    def chosen(self, path: Path) -> None:
        if not self._busy:
            self._say(None)
            self._busy = True
            self._check_then_write(path)

    @work(group="bulk-export", exit_on_error=False)
    async def _check_then_write(self, path: Path) -> None:
        try:
            exists = await run_blocking(path.exists)
            if exists:
                question = join(safe(path), " exists. Replace it with this run's results?")
                dialog = ConfirmDialog("Replace the file?", question, "Replace")
                if not await services_of(self).ask(dialog):
                    self._say(join(safe(path), " exists: not replaced. Give another name."))
                    return
            written = await self.run.spool.export(path, replace=exists)
        except BottuiError as exc:
            self._say(safe(error_text(exc)))
            return
        finally:
            self._busy = False
        # ``Wrote 3,000 rows to /tmp/bulk-run-3.csv`` (the path cleaned: it is data).
        rows = plural(self.run.spool.rows, "row")
        self.notify(f"Wrote {rows} to {clean(str(written))}", title="Exported", markup=False)
        self.dismiss(None)


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
                yield Button(Content(HIDE), id="bulk-hide", classes="closes")
                yield Button(Content(STOP), id="bulk-stop", variant="warning")
                for name, words in (("bulk-export", "Export…"), ("bulk-resume-run", "Resume…")):
                    button = Button(Content(words), id=name)
                    button.display = False
                    yield button
                close = Button(
                    Content("Close"), id="bulk-close", variant="primary", classes="closes"
                )
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
        say(self.query_one("#bulk-state", Static), state if state.plain else None)

    # -- stopping -----------------------------------------------------------------------

    @on(Button.Pressed, "#bulk-stop")
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
        title = "Bulk revocation stopped" if stopped(summary) else "Bulk revocation done"
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

    @on(Button.Pressed, "#bulk-export")
    def _export(self, event: Button.Pressed) -> None:
        event.stop()
        self.app.push_screen(BulkExportDialog(self.background))

    @on(Button.Pressed, "#bulk-resume-run")
    def _resume(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("resume")


EMPTY = "Paste ids above or give a file; nothing is sent before you confirm."
BOTH = "Give the ids either pasted or in a file, not both."


class BulkDraft(msgspec.Struct):
    """What the operator entered, kept by the Grants screen between openings."""

    text: str = ""
    path: str = ""
    concurrency: str = str(DEFAULT_CONCURRENCY)
    resume: bool = False


class Preview(msgspec.Struct, frozen=True):
    """What the input holds, for one (text, path) pair.

    Attributes:
        key: The (text, path) it was read from.
        source: The input, when it could be read.
        plan: What a run would send (nothing is sent), when it could be read.
        problem: Why the input cannot be used (our words; details cleaned on display).
        path_problem: True when ``problem`` is about the file path.
    """

    key: tuple[str, str]
    source: BulkSource | None = None
    plan: BulkPlan | None = None
    problem: str | None = None
    path_problem: bool = False


def file_problem(path: Path) -> str | None:
    """Why ``path`` cannot be loaded (missing, a directory, unreadable), or None."""
    if not path.exists():
        return "No such file"
    if not path.is_file():
        return "Not a file"
    if not os.access(path, os.R_OK):
        return "Not readable (permission denied)"
    return None


def read_input(session: Session, account: str, project: str, text: str, path: str) -> Preview:
    """Read the pasted text or the file and plan the run; sends nothing (runs in a thread)."""
    key = (text, path)
    given_path = path.strip()
    if given_path and text.strip():
        return Preview(key, problem=BOTH)
    try:
        if given_path:
            file = Path(given_path).expanduser()
            problem = file_problem(file)
            if problem is not None:
                return Preview(key, problem=problem, path_problem=True)
            source = BulkSource.from_path(file)
        elif text.strip():
            source = BulkSource.from_text(text)
        else:
            return Preview(key)
        plan = plan_bulk(session, account, project, source, keep=DRY_RUN_SHOWN)
    except BottuiError as exc:  # the input's fault; anything else is the app's to report
        return Preview(key, problem=error_text(exc), path_problem=bool(given_path))
    return Preview(key, source=source, plan=plan)


class PlainTextArea(TextArea):
    """A ``TextArea`` that refuses a paste holding control characters (as ``PlainInput``
    does); here, beside its one user, because Textual's ``TextArea`` costs ~5 ms to import."""

    async def _on_paste(self, event: events.Paste) -> None:
        refuse_paste(self, event)


#: The Resume checkbox's label; its box says on (``[x]``) or off (``[ ]``).
RESUME_LABEL = "Resume previous run"


class BulkDialog(_Dialog):
    """Paste or load ids, see what they hold, confirm; returns a :class:`BulkOrder`.

    Args:
        account: The account id.
        project: The project id.
        draft: What was entered last time (updated as the operator types).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Close (the input is kept)", id="bulk.close"),
        # A priority key: keys typed ahead follow the focus it moves (#24).
        Binding(
            "enter",
            "next_field",
            "Next field; in the last, review the run",
            show=False,
            priority=True,
            id="bulk.next_field",
        ),
    ]

    def __init__(self, account: str, project: str, draft: BulkDraft | None = None) -> None:
        super().__init__()
        self.account = account
        self.project = project
        self.draft = draft if draft is not None else BulkDraft()
        self.preview: Preview | None = None
        self._reading = False

    def compose(self) -> ComposeResult:
        draft = self.draft
        with Vertical(id="bulk-box"):
            yield Label(
                join("Bulk revoke · ", safe_id(self.account), " / ", safe_id(self.project)),
                classes="dialog-title",
            )
            yield Static(
                Content(
                    "Paste ids: one visitor id per line, or CSV with a header naming "
                    "visitorId and/or userAccountId. Or give a file."
                ),
                classes="hint",
            )
            yield PlainTextArea(
                draft.text,
                id="bulk-text",
                soft_wrap=False,
                show_line_numbers=True,
                compact=True,
                placeholder="visitor ids, one per line (or CSV with a header line)",
            )
            with Horizontal(classes="bulk-row"):
                yield Label(Content("File"), classes="bulk-label")
                yield PlainInput(
                    draft.path,
                    placeholder="path to a .txt or .csv file, instead of pasting",
                    id="bulk-path",
                    compact=True,
                )
            yield Static("", id="bulk-path-error", classes="field-error")
            # The resume box first: the concurrency is the form's last field, where
            # Enter starts (#24), and Tab from it goes on to the Revoke button.
            with Horizontal(classes="bulk-row"):
                yield StateCheckbox(RESUME_LABEL, draft.resume, id="bulk-resume", compact=True)
                yield Label(Content("Concurrency"), classes="bulk-label")
                yield PlainInput(
                    draft.concurrency,
                    type="integer",
                    max_length=2,
                    id="bulk-concurrency",
                    compact=True,
                )
                yield Static(Content(f"(1-{MAX_CONCURRENCY})"), classes="bulk-unit")
            yield Static("", id="bulk-concurrency-error", classes="field-error")
            # Not focusable: it holds at most a head line and a few invalid lines.
            with VerticalScroll(id="bulk-preview-box", can_focus=False):
                yield Static(Content(EMPTY), id="bulk-preview")
            # Revoke first: one Tab from the last field (#24); Cancel after it, and Esc.
            with Horizontal(classes="dialog-buttons"):
                yield Button(
                    Content("Revoke…"),
                    id="bulk-start",
                    variant="error",
                    disabled=True,
                    classes="primary-action",
                )
                yield Button("Cancel", id="bulk-cancel", classes="closes")

    def on_mount(self) -> None:
        # Made here, on the event loop: the preview thread only uses it.
        services_of(self).session.client()
        self.query_one("#bulk-text", TextArea).focus()
        self._check_concurrency()
        self._input_changed()

    # -- reading the input ------------------------------------------------------------

    def _key(self) -> tuple[str, str]:
        return (
            self.query_one("#bulk-text", TextArea).text,
            self.query_one("#bulk-path", Input).value,
        )

    def _input_changed(self) -> None:
        text, path = self._key()
        self.draft.text, self.draft.path = text, path
        self._update_start()
        if not self._reading:
            self._reading = True
            self.query_one("#bulk-preview", Static).update(Content("Reading the input…"))
            self.run_worker(self._read_loop(), group="bulk-preview", exit_on_error=False)

    async def _read_loop(self) -> None:
        """Read until the preview matches what is in the fields (one read at a time, on
        the store executor: a file or a pasted list may be large)."""
        services = services_of(self)
        session = services.session
        try:
            while True:
                key = self._key()
                read = functools.partial(read_input, session, self.account, self.project, *key)
                preview = await run_blocking(read)
                if self._key() == key:
                    break
        except Exception as exc:  # a bug, not the input: the one renderer says so
            self._reading = False
            services.report(exc)
            return
        self._reading = False
        self._show_preview(preview)

    def _show_preview(self, preview: Preview) -> None:
        self.preview = preview
        box = self.query_one("#bulk-preview", Static)
        path_error = self.query_one("#bulk-path-error", Static)
        path_error.display = False
        box.remove_class("bulk-problem")
        if preview.problem is not None:
            words = safe(preview.problem)
            if preview.path_problem:
                path_error.update(words)
                path_error.display = True
                box.update(Content("The file cannot be loaded."))
            else:
                box.update(words)
            box.add_class("bulk-problem")
        elif preview.plan is None or preview.source is None:
            box.update(Content(EMPTY))
        else:
            lines = preview_lines(preview.source.candidate_lines, preview.plan)
            if preview.plan.count == 0:
                lines.append(Content("No valid id: nothing to send."))
            box.update(Content("\n").join(lines))
        self._update_start()

    # -- concurrency, resume, start ---------------------------------------------------

    def _concurrency(self) -> int | None:
        raw = self.query_one("#bulk-concurrency", Input).value.strip()
        try:
            value = int(raw)
        except ValueError:
            return None
        return value if 1 <= value <= MAX_CONCURRENCY else None

    def _check_concurrency(self) -> None:
        error = self.query_one("#bulk-concurrency-error", Static)
        ok = self._concurrency() is not None
        error.update(
            Content("")
            if ok
            else Content(f"Concurrency is a whole number from 1 to {MAX_CONCURRENCY}.")
        )
        error.display = not ok

    def _ready(self) -> BulkOrder | None:
        """The order the Start button would confirm, or None while anything is wrong."""
        preview = self.preview
        concurrency = self._concurrency()
        if (
            self._reading
            or preview is None
            or preview.key != self._key()
            or preview.source is None
            or preview.plan is None
            or preview.plan.count == 0
            or concurrency is None
        ):
            return None
        path = preview.key[1].strip()
        return BulkOrder(
            account=self.account,
            project=self.project,
            source=preview.source,
            plan=preview.plan,
            concurrency=concurrency,
            path=path or None,
            resume=self.query_one("#bulk-resume", Checkbox).value,
        )

    def _update_start(self) -> None:
        start = self.query_one("#bulk-start", Button)
        order = self._ready()
        start.disabled = order is None
        label = "Revoke…" if order is None else f"Revoke {plural(order.plan.count, 'grant')}…"
        if start.label != label:  # Content == str compares the plain text
            start.label = Content(label)
            start.refresh(layout=True)  # Button.label does not re-measure the width itself

    # -- events -------------------------------------------------------------------------

    @on(TextArea.Changed, "#bulk-text")
    @on(Input.Changed, "#bulk-path")
    def _changed(self, event: Any) -> None:
        event.stop()
        self._input_changed()

    @on(Input.Changed, "#bulk-concurrency")
    def _concurrency_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.draft.concurrency = event.value
        self._check_concurrency()
        self._update_start()

    def action_next_field(self) -> None:
        """Enter in the file field moves to the concurrency, the last field; Enter there
        opens the run's confirmation when the input is ready, or says what is missing."""
        focused = self.focused
        path = self.query_one("#bulk-path", Input)
        concurrency = self.query_one("#bulk-concurrency", Input)
        if focused is path:
            self.set_focus(concurrency)
        elif focused is concurrency:
            if self._ready() is not None:
                self._start_run()
            elif self._concurrency() is None:
                concurrency.add_class("-invalid")
            else:  # the input: empty, unreadable or still being read
                self.notify(
                    "Nothing to start yet: paste ids or give a file (the preview says why).",
                    title="Not started",
                    severity="warning",
                    markup=False,
                )
        else:
            raise SkipAction()  # a newline in the pasted ids; a button or box's own Enter

    @on(Input.Submitted)
    def _enter(self, event: Input.Submitted) -> None:
        event.stop()  # Enter is the priority key's (action_next_field)

    @on(Checkbox.Changed, "#bulk-resume")
    def _resume_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.draft.resume = event.value

    @on(Button.Pressed, "#bulk-start")
    def _start_run(self) -> None:
        """Open the run's confirmation (on top of this dialog) when the input is ready."""
        order = self._ready()
        if order is not None:
            self._confirm(order)

    @work(group="plan", exit_on_error=False)
    async def _confirm(self, order: BulkOrder) -> None:
        """Ask before sending ``order``; confirmed, the dialog closes with it and its reason."""
        services = services_of(self)
        decided = await services.decided(bulk_prompt(services, order))
        if decided is not None:
            self.dismiss(replace(order, reason=decided.reason))
