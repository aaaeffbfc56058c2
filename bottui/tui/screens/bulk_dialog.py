"""The bulk revocation dialog: paste ids or load a file, preview, confirm.

The operator pastes ids (one visitor id per line, or CSV with a header
naming ``visitorId`` and/or ``userAccountId``) or gives a file path. As the
input changes, :func:`bottui.ops.bulk.engine.plan_bulk` reads it in a thread (it
sends nothing) and the dialog shows how many lines and ids it holds and
which lines are invalid, with their numbers and reasons. Start goes through
the app's confirmation (:func:`~bottui.tui.screens.bulk_confirm.confirm_bulk`)
on top of this dialog, so Cancel there comes back here with the input
intact; once confirmed the dialog returns a :class:`BulkOrder` and the
app runs it in the background (:mod:`bottui.tui.bulk_runs`).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Label, Static, TextArea

from bottui.api.errors import BottuiError
from bottui.ops.bulk.engine import BulkPlan, plan_bulk
from bottui.ops.bulk.input import BulkSource
from bottui.ops.bulk.report import DEFAULT_CONCURRENCY, MAX_CONCURRENCY
from bottui.ops.session import Session
from bottui.store.executor import run_blocking
from bottui.tui.error_view import error_text
from bottui.tui.screens.bulk_confirm import DRY_RUN_SHOWN, BulkOrder, confirm_bulk
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.services import services_of
from bottui.tui.widgets.bulk_words import plural, preview_lines
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.plain_text_area import PlainTextArea
from bottui.tui.widgets.safe import join, safe, safe_id
from bottui.tui.widgets.state_checkbox import StateCheckbox

EMPTY = "Paste ids above or give a file; nothing is sent before you confirm."
BOTH = "Give the ids either pasted or in a file, not both."


@dataclass
class BulkDraft:
    """What the operator entered, kept by the Grants screen between openings."""

    text: str = ""
    path: str = ""
    concurrency: str = str(DEFAULT_CONCURRENCY)
    resume: bool = False


@dataclass(frozen=True)
class Preview:
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
                yield Button("Cancel", id="bulk-cancel")

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

    @on(Button.Pressed, "#bulk-cancel")
    def _cancel(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    @on(Button.Pressed, "#bulk-start")
    def _start(self, event: Button.Pressed) -> None:
        event.stop()
        self._start_run()

    def _start_run(self) -> None:
        """Open the run's confirmation (on top of this dialog) when the input is ready."""
        order = self._ready()
        if order is None:
            return

        def confirmed(with_reason: BulkOrder) -> None:
            self.dismiss(with_reason)

        confirm_bulk(services_of(self), order, confirmed)
