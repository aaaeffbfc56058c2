"""Grants: withdraw a challenge grant by visitor id and/or user account id.

The form validates as the operator types; submitting plans the revocation
once (:func:`bottui.ops.planning.plan_revocation`), shows that plan through the
one confirmation (focus on Cancel, dry run, read-only, protected), and the
worker sends exactly it (:func:`bottui.ops.mutations.apply`). The result panel says plainly
which of the four outcomes happened, and this session's revocations are
listed below, failures included.

The form lives in ``#grants-forms`` on its own. ``b`` opens the bulk dialog
(pasted ids or a file, :mod:`bottui.tui.screens.bulk_dialogs`); once confirmed,
the app runs it in the background (:mod:`bottui.tui.bulk_runs`) and the run's
screen (:mod:`bottui.tui.screens.bulk_dialogs`) shows progress and summary; during
a run ``b`` shows that screen again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import ClassVar

from msgspec.structs import replace
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from bottui.api.errors import (
    ApiError,
    BottuiError,
    CredentialsError,
    NetworkError,
    RefusedError,
)
from bottui.api.models import Revocation
from bottui.ops import planning
from bottui.ops.mutations import apply
from bottui.ops.planning import PlannedChange, RevocationTarget
from bottui.store.utc import system_clock
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.error_report import Attempt, Failure
from bottui.tui.screens.base import NO_PROJECT, BottuiScreen, on_answer, project_words
from bottui.tui.screens.bulk_dialogs import BulkDialog, BulkOrder
from bottui.tui.ui_rules import show_widget
from bottui.tui.widgets.result_panels import (
    UNKNOWN_FAILURE,
    RevocationForm,
    RevocationHistory,
    RevocationRecord,
    RevocationResult,
    subject_line,
)
from bottui.tui.widgets.untrusted_text import join


@dataclass
class RevocationEnded(Message):
    """The service answered a revocation, or it failed (``record.failure``; the one error
    renderer shows why)."""

    record: RevocationRecord


def failure_words(error: BaseException) -> str:
    """A few words for the history table; the toast and ``e`` give the rest."""
    if isinstance(error, BottuiError) and error.ambiguous:
        # The request may have arrived: the change may have been applied.
        return UNKNOWN_FAILURE
    if isinstance(error, ApiError):
        return f"HTTP {error.status}"
    if isinstance(error, CredentialsError):
        return "no token"
    if isinstance(error, NetworkError):
        return "no answer"
    if isinstance(error, RefusedError):
        return "refused"
    if isinstance(error, asyncio.CancelledError):
        return "interrupted"
    return "error"


class GrantsScreen(BottuiScreen):
    """Revoke a challenge grant, see what happened, and what this session did."""

    SCREEN_TITLE: ClassVar[str] = "Grants"
    # Arrive outside the text fields, so 1-5, ? and e keep working; i enters the form.
    AUTO_FOCUS: ClassVar[str | None] = "#revocation-history"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("i", "focus_form", "Revoke form", id="grants.form"),
        Binding("b", "bulk", "Bulk revoke", id="grants.bulk"),
        Binding("escape", "leave_field", "Leave field", show=False, id="grants.leave"),
    ]

    def __init__(self) -> None:
        super().__init__()
        #: This session's revocations, oldest first.
        self.records: list[RevocationRecord] = []

    def compose_body(self) -> ComposeResult:
        yield Static(Content(self.SCREEN_TITLE), id="grants-title", classes="screen-title")
        yield Static(Content(NO_PROJECT), id="grants-empty", classes="hint")
        with Horizontal(id="grants-forms"):
            yield RevocationForm(id="revocation-form")
        yield RevocationResult(id="revocation-result", classes="panel")
        yield Static(
            Content("This session's revocations (newest first)"),
            id="revocations-title",
            classes="section-title",
        )
        yield RevocationHistory(id="revocation-history")

    def on_mount(self) -> None:
        self.query_one(RevocationHistory).show(self.records)

    # -- reading ------------------------------------------------------------------

    def refresh_data(self) -> None:
        current = self.services.current
        self.query_one("#grants-title", Static).update(self.project_title())
        self.query_one("#grants-empty").display = current is None
        # Hidden with no project: a field of it never keeps the focus unseen.
        show_widget(self.query_one("#grants-forms"), current is not None)
        self._show_result()  # another project: its own latest attempt, or none

    # -- actions --------------------------------------------------------------------

    def action_focus_form(self) -> None:
        """Put the cursor in the visitor id field."""
        if self.current_or_say() is not None:
            self.query_one(RevocationForm).focus_first()

    def action_bulk(self) -> None:
        """Open the bulk dialog: paste ids or load a file (during a run: the run's screen)."""
        runs = self.services.bulk
        if runs.active:
            runs.show()
            return
        current = self.current_or_say()
        if current is None:
            return
        if self.services.refuse_if_read_only(
            "Revoke grants"
        ):  # before the ids are pasted for nothing
            return
        self.app.push_screen(BulkDialog(*current, draft=runs.draft), self._bulk_ordered)

    def action_leave_field(self) -> None:
        """Leave the form (so 1-5, e and the other keys work again)."""
        self.query_one(RevocationHistory).focus()

    # -- revoking -------------------------------------------------------------------

    @on(RevocationForm.Submitted)
    def _submitted(self, message: RevocationForm.Submitted) -> None:
        current = self.current_or_say()
        # A read-only profile is refused before planning.
        if current is not None and not self.services.refuse_if_read_only("Revoke grants"):
            self._revoke(*current, message.visitor_id, message.user_account_id)

    @work(group="change", exit_on_error=False)
    async def _revoke(
        self, account: str, project: str, visitor: str | None, user: str | None
    ) -> None:
        """Plan the revocation once, confirm that plan, send exactly it; its answer or its
        failure goes to the history."""
        services = self.services
        session = services.session
        started = RevocationRecord(
            at=(session.clock or system_clock)(),
            account=account,
            project=project,
            visitor_id=visitor,
            user_account_id=user,
        )
        revocation = planning.plan_revocation(
            session, account, project, visitor_id=visitor, user_account_id=user
        )
        plan = await services.planned(revocation, "Revoke grants")
        if plan is not None:
            prompt = ChangePrompt.of(plan, self._body(plan))
            plan = await services.confirmed(plan, prompt, "Revoke grants")
        if plan is None:
            return
        subject = subject_line(visitor, user).plain
        attempt = Attempt.of_plan(plan, "Revoke grant", subject)
        # Out of the fields while the call runs: 1-5 and e work again.
        self.query_one(RevocationHistory).focus()
        try:
            with self.sending("Revoking grant", attempt):
                applied = await apply(session, plan, confirmed=True)
        except BaseException as exc:
            failure = Failure.of(exc, attempt)
            self.post_message(
                RevocationEnded(replace(started, error=failure_words(exc), failure=failure))
            )
            raise
        answered = replace(started, revocation=applied.value, journal_id=applied.journal_id)
        self.post_message(RevocationEnded(answered))

    def _body(self, plan: PlannedChange[Revocation]) -> Content:
        """The confirmation's body: the plan's subject, project and account."""
        target = plan.target
        assert isinstance(target, RevocationTarget)
        return join(
            "Withdraw the challenge grant held on\n  ",
            subject_line(target.visitor_id, target.user_account_id),
            "\nin project ",
            project_words(self.services, plan.account, plan.project),
            ".\nThe identity faces the challenge again.",
        )

    def _show_result(self) -> None:
        """The panel shows the current project's latest attempt, or nothing."""
        current = self.services.current
        latest = next(
            (r for r in reversed(self.records) if (r.account, r.project) == current), None
        )
        self.query_one(RevocationResult).show(latest)

    @on_answer(RevocationEnded)
    def _ended(self, message: RevocationEnded) -> None:
        self.records.append(message.record)
        self.query_one(RevocationHistory).show(self.records)
        self._show_result()  # a failure replaces an earlier "Withdrawn"
        if message.record.failure is None:
            # Cleared, so a stale id never rides along with the next revocation;
            # focus stays out of the fields (i goes back), so the key bar shows the keys.
            # After a failure the form keeps its values: fix the token or retry as is.
            self.query_one(RevocationForm).clear()

    # -- bulk revocation --------------------------------------------------------------

    def _bulk_ordered(self, order: BulkOrder | None) -> None:
        if order is not None:
            self.services.bulk.start_and_show(order)
