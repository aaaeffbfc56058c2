"""The Playbooks screen: the playbooks of the config directory, the plan of one, its run.

Left, the playbooks (a file with a problem shows its ``FILE:LINE`` and
reason instead of a plan). Right, the selected one's plan as a table, one
row per step: target, the value known now, the new value, where the known
value came from, and the step's state once running. ``r`` runs it after one
confirmation (:class:`PlaybookConfirm`: duration and reason); each row's state
changes as its step is sent; the summary says how it ended. A run that stops at
a failure offers to revert the steps already done (last first, the superseded rule).

The confirmation's duration is typed like ``--for`` (``90s``, ``30m``, ``2h``,
``1h30m``); empty means the playbook's default (named in the placeholder) or
none. A protected profile also wants the project id typed, as every change
does, in the last field. The dialog returns a :class:`RunAnswer`, or None when
cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from textual import on, work
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from bottui.api.errors import RefusedError
from bottui.ops.playbooks import library, playbook_plan
from bottui.ops.playbooks.library import PlaybookFileError
from bottui.ops.playbooks.playbook_plan import PlaybookPlan
from bottui.ops.playbooks.playbook_run import RunSummary, StepResult, run_playbook
from bottui.ops.revert import PlaybookRevert, revert_steps
from bottui.plaintext import clean
from bottui.tui.change_prompt import Timing
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.screens.base import BottuiScreen
from bottui.tui.screens.change_form import ConfirmDialog, ReasonAsked
from bottui.tui.widgets.untrusted_text import safe, safe_text

if TYPE_CHECKING:
    from bottui.ops.playbooks.library import Playbook


class RunAnswer(msgspec.Struct, frozen=True):
    """What the confirmation decided: when to revert (None: never) and why."""

    revert_after: timedelta | None
    reason: str | None


class PlaybookConfirm(ConfirmDialog):
    """Run a playbook? One confirmation for every step, a form like every change's.

    The fields, top to bottom: the reason, the duration, and (a protected
    profile) the project id typed last; Enter moves down them and sends only
    from the last field of a complete form (:class:`~bottui.tui.screens.dialogs.ConfirmDialog`).
    """

    def __init__(
        self,
        title: str,
        body: Content,
        *,
        default: timedelta | None,
        default_text: str | None,
        typed: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(title, body, "Run", expected=typed, timing=Timing(), **options)
        self._default = default
        self._default_text = default_text

    def _duration_words(self) -> tuple[str, str]:
        placeholder = f"{self._default_text} (default)" if self._default_text else "never"
        return placeholder, "Revert after this long: 30m, 2h (empty: the playbook's own)"

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if result is True:
            after = self.revert_after if self.revert_after is not None else self._default
            return super().dismiss(RunAnswer(after, self.reason))
        return super().dismiss(None)


# State before the values: the thresholds' texts are long, and the progress
# of a run must stay in view at 80 columns (the table scrolls sideways).
_COLUMNS = ("Step", "Target", "State", "Known now", "New", "Source")
_STATE_WORDS = {"pending": "", "sending": "sending…", "not sent": "not sent"}


@dataclass
class PlaybookRunEnded(Message):
    """A run ended (complete or stopped): its summary."""

    summary: RunSummary


@dataclass
class PlaybookReverted(Message):
    """The steps a stopped run did were reverted (or not): the report."""

    report: PlaybookRevert


class PlaybooksScreen(BottuiScreen):
    """The playbooks, the selected one's plan, and its run."""

    SCREEN_TITLE: ClassVar[str] = "Playbooks"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "run_playbook", "Run", id="playbooks.run"),
        Binding("ctrl+r", "reload", "Reload files", id="playbooks.reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._books: list[Playbook | PlaybookFileError] = []
        self._plan: PlaybookPlan | None = None
        self._busy = False
        #: Journal entry id -> step number, of the steps of the last run.
        self._entry_steps: dict[int, int] = {}

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="playbook-top"):
            yield OptionList(id="playbook-list")
            yield Static(Content("Reading playbooks…"), id="playbook-head")
        table: DataTable[Any] = MeasuredTable(
            id="playbook-plan", cursor_type="row", zebra_stripes=True
        )
        for column in _COLUMNS:
            table.add_column(column, key=column)
        yield table
        yield Static(Content(""), id="playbook-summary")

    def on_mount(self) -> None:
        self.action_reload()

    # -- the list ------------------------------------------------------------------

    def action_reload(self) -> None:
        """Read the playbook files again."""
        session = self.services.session
        self.load(lambda: library.load_all(session.locations), self._show_list, group="list")

    def _show_list(self, books: list[Playbook | PlaybookFileError]) -> None:
        self._books = books
        options = self.query_one("#playbook-list", OptionList)
        options.clear_options()
        for book in books:
            name = book.path.stem if isinstance(book, Exception) else book.name
            mark = "! " if isinstance(book, Exception) else ""
            options.add_option(Option(safe_text(mark + name)))
        if not books:
            folder = library.directory(self.services.session.locations)
            self._head(f"No playbooks yet: add NAME.toml files to {folder} (docs/playbooks.md).")
            return
        options.highlighted = 0
        self._select(0)

    @on(OptionList.OptionHighlighted, "#playbook-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if not self._busy:
            self._select(event.option_index)

    def _select(self, index: int) -> None:
        if index >= len(self._books):
            return
        book = self._books[index]
        self._plan = None
        self._table().clear()
        self._summary("")
        if isinstance(book, PlaybookFileError):
            self._head(_problem(book))
            return
        self._head(f"Planning {book.name}…")
        self.load(lambda: self._plan_of(book), self._show_plan, group="plan")

    async def _plan_of(self, book: Playbook) -> PlaybookPlan | PlaybookFileError:
        session = self.services.session
        current = self.services.current
        try:
            account, project = playbook_plan.scope(
                session, book, current[0] if current else None, None
            )
            # Shown even when the inventory never saw an id (r refuses it then).
            return await playbook_plan.plan_playbook(session, book, account, project, strict=False)
        except PlaybookFileError as exc:
            return exc

    def _show_plan(self, plan: PlaybookPlan | PlaybookFileError) -> None:
        if isinstance(plan, Exception):
            self._head(_problem(plan))
            return
        self._plan = plan
        book = plan.playbook
        parts = [f"{book.name} on {plan.account}/{plan.project}: {len(plan.steps)} steps"]
        if book.duration_text:
            parts.append(f"reverts after {book.duration_text} unless told otherwise")
        if book.description:
            parts.append(book.description)
        warnings = [f"{s.unseen}; r refuses it until then" for s in plan.steps if s.unseen]
        warnings += [f"step {s.number}: {w}" for s in plan.steps for w in s.warnings]
        self._head("\n".join(parts + warnings) + "\nr runs it (one confirmation).")
        table = self._table()
        table.clear()
        for step in plan.steps:
            texts = (str(step.number), step.target, "", step.known, step.new, step.source)
            table.add_row(*(safe_text(t) for t in texts), key=str(step.number))

    # -- the run -------------------------------------------------------------------

    def action_run_playbook(self) -> None:
        """Confirm once, then run the selected playbook."""
        plan = self._plan
        if plan is None or self._busy:
            return
        services = self.services
        if services.refuse_if_read_only(f"Run playbook {plan.playbook.name}"):
            return
        unseen = next((s.unseen for s in plan.steps if s.unseen), None)
        if unseen is not None:  # shown, never run: the step could not be reverted
            refused = RefusedError(f"Cannot run playbook {plan.playbook.name}", unseen)
            services.report(refused, operation=f"Run playbook {plan.playbook.name}")
            return
        if services.dry_run:  # every step's request(s), in order; nothing is sent
            services.show_dry_run([r for step in plan.steps for r in step.change.requests])
            return
        book = plan.playbook
        listing = "\n".join(f"{s.number}. {s.target}: {s.known} → {s.new}" for s in plan.steps)
        dialog = PlaybookConfirm(
            clean(f"Run playbook {book.name}?"),
            Content(
                clean(
                    f"{len(plan.steps)} steps on {plan.account}/{plan.project}, in order; "
                    "the run stops at the first failure."
                )
            ),
            listing=safe(listing, keep_newlines=True),
            default=book.duration,
            default_text=book.duration_text,
            reason=ReasonAsked(required=services.session.settings.require_reason),
            typed=plan.typed,
            decision=clean(
                f"run playbook {book.name}: {len(plan.steps)} steps on "
                f"{plan.account}/{plan.project}"
            ),
        )
        self._run(plan, dialog)

    @work(group="playbook-run", exit_on_error=False)
    async def _run(self, plan: PlaybookPlan, dialog: PlaybookConfirm) -> None:
        """Run the playbook, step by step, once ``dialog`` confirmed it."""
        answer = await self.services.ask(dialog)
        if answer is None:
            return
        self._busy = True
        self._entry_steps.clear()
        self._summary("")
        session = self.services.session
        with self.sending(f"Running playbook {plan.playbook.name}"):
            summary = await run_playbook(
                session,
                plan.with_reason(answer.reason),
                confirmed=True,
                revert_after=answer.revert_after,
                progress=self._progress,
                now=session.clock,
            )
        self.post_message(PlaybookRunEnded(summary))

    def _progress(self, result: StepResult) -> None:
        word = _STATE_WORDS.get(result.state, result.state)
        if result.journal_id is not None:
            word += f" #{result.journal_id}"
            self._entry_steps[result.journal_id] = result.step.number
        if result.detail:
            word += f": {result.detail}"
        table = self._table()
        table.update_cell(str(result.step.number), "State", safe_text(word))
        if result.state not in ("sending", "done") and self._plan is not None:
            for step in self._plan.steps[result.step.number :]:
                table.update_cell(str(step.number), "State", safe_text("not sent"))

    def on_playbook_run_ended(self, message: PlaybookRunEnded) -> None:
        """The run is over: its summary, and the offer to revert when it stopped."""
        self._busy = False
        summary = message.summary
        run = f"Run #{summary.run_id}" if summary.run_id is not None else "Run (not journaled)"
        text = f"{run}: {summary.text()}"
        if summary.revert_due is not None:
            text += f"\nReverts at {summary.revert_due.isoformat(timespec='seconds')}."
        self._summary(text)
        # Its changes taught the inventory and may have scheduled a revert: every
        # screen reads again, and the header's countdown says it at once (#27).
        self.services.inventory_changed()
        if summary.stopped_at is not None and summary.done:
            self._offer_revert(summary)

    def _offer_revert(self, summary: RunSummary) -> None:
        # No worker waits for the answer: the run is over, and the offer may stay open.
        stop = summary.stopped_at
        assert stop is not None
        done = "\n".join(
            f"{r.step.number}. {r.step.target}: back to {r.step.known}" for r in summary.done
        )
        dialog = ConfirmDialog(
            clean(f"The run stopped at step {stop.step.number}"),
            safe(
                f"Step {stop.step.number} {stop.state}: {stop.detail}\n"
                f"Revert the {len(summary.done)} step(s) done, last first?",
                keep_newlines=True,
            ),
            "Revert",
            listing=safe(done, keep_newlines=True),
        )
        self.app.push_screen(dialog, partial(self._revert_answered, summary))

    def _revert_answered(self, summary: RunSummary, ok: bool | None) -> None:
        if ok:
            self._revert(summary)

    @work(group="playbook-run", exit_on_error=False)
    async def _revert(self, summary: RunSummary) -> None:
        """Revert the steps a stopped run did, last first (the operator said so)."""
        with self.sending("Reverting the steps done"):
            report = await revert_steps(self.services.session, summary, reason=None)
        self.post_message(PlaybookReverted(report))

    def on_playbook_reverted(self, message: PlaybookReverted) -> None:
        """Show how the revert ended under the summary."""
        current = str(self.query_one("#playbook-summary", Static).content)
        lines = message.report.lines()
        self._summary(f"{current}\n" + "\n".join(lines))
        self.services.inventory_changed()  # the steps put back: every screen reads again
        for step in message.report.report.steps:
            number = self._entry_steps.get(step.entry_id or 0)
            if number is not None:
                self._table().update_cell(str(number), "State", safe_text(step.state))

    # -- helpers -------------------------------------------------------------------

    def _table(self) -> DataTable[Any]:
        return self.query_one("#playbook-plan", DataTable)

    def _head(self, text: str) -> None:
        self.query_one("#playbook-head", Static).update(safe(text, keep_newlines=True))

    def _summary(self, text: str) -> None:
        self.query_one("#playbook-summary", Static).update(safe(text, keep_newlines=True))


def _problem(error: PlaybookFileError) -> str:
    """``NAME.toml:LINE: reason`` (the directory is the config's ``playbooks/``)."""
    line = f":{error.line}" if error.line is not None else ""
    return f"{error.path.name}{line}: {error.reason}"
