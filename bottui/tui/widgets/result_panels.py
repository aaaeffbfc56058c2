"""The result panels: what the latest change of the current project did, said plainly.

The Grants, Rate limiters and Thresholds screens each show the latest attempt
of the current project in a panel. Words first, colour second: every
headline reads the same without colour.

* A failed or unknown attempt reads the same on every screen
  (:func:`show_failure`): "FAILED" (nothing was
  changed) or "UNKNOWN" (the request may have arrived), the server's error,
  which token to fix when one was refused, and where the whole error is (the
  error log, ``e``).
* :class:`AttemptPanel`: one kind of change's latest attempt; a success whose
  value was changed since is shown as history ("at 20:56 UTC · since
  changed"), #27; hidden until there is an attempt.
* :class:`RevocationResult`: four outcomes, never blurred: withdrawn; nothing
  was standing (not an error); unknown (the service did not say); unknown
  after a retry (an earlier attempt may have withdrawn the grant before the
  connection failed, so the final "nothing standing" proves nothing).
* :class:`ReturnedProject`: the rate limiter operation answers with the whole
  project, so this panel shows what that answer says: name, url, isProtected,
  siteKey, the serverKey **masked**, and the rate limiters it lists. It also
  says how the changed limiter's new state is known: listed in the answer
  ("response"), or only the state we sent because the answer did not say
  ("request"). It never contradicts the table: when a limiter it lists was
  changed since (an undo, a timed revert, the CLI, a teammate), it says
  plainly that it is history, when, and what each is now ("at 20:56:12 UTC
  rl-login was set ON · since changed to OFF"), #27.

**The Grants screen's revocation**: its form, and this session's revocations.

:class:`RevocationForm` takes a visitor id, a user account id, or both,
validated as the operator types with the same rules the client applies
before sending (:func:`bottui.api.requests.subject_id`): 1 to 256
characters, no control characters, at least one id. The message sits under
its field and the submit button stays disabled while anything is wrong. The
form only asks; the screen confirms and sends (it hears
:class:`RevocationForm.Submitted`).

:class:`RevocationHistory` lists this session's revocations, newest first:
time, ids, outcome, reportId. Failed calls are listed too ("failed: ..."),
so the table is an honest account of what the operator tried, not only of
what worked.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import msgspec
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Static

from bottui.api.errors import ValidationError, without_unknown_note
from bottui.api.models import (
    SECRET_MASK,
    LimiterChange,
    LimiterStateSource,
    Project,
    Revocation,
    RevocationOutcome,
)
from bottui.api.requests import subject_id
from bottui.plaintext import clean
from bottui.tui.error_report import Failure
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.ui_rules import tone
from bottui.tui.widgets.limiter_table import state_word
from bottui.tui.widgets.untrusted_text import (
    PlainInput,
    join,
    safe,
    safe_id,
    safe_id_text,
    safe_text,
)

# -- a failed or unknown attempt, on every panel ---------------------------------------

#: The headline's CSS class (see ``bottui.tcss``).
FAILED_CLASS: Final = "result-failed"
UNKNOWN_CLASS: Final = "result-unknown"
LOG_HINT: Final = "e: the error log, with the whole error"
#: Under an unknown outcome's details: what to do before trying again.
UNKNOWN_CHECK: Final = "Check whether it was applied before repeating it."


def show_failure(panel: Widget, failure: Failure, where: Content, classes: Iterable[str]) -> None:
    """Show a failed or unknown attempt on ``where`` in ``panel`` (see :func:`fill`): the
    headline, what it was about, the server's error, the token hint and where the rest is."""
    title = safe(failure.title)
    if failure.unknown:
        headline, css = join("UNKNOWN: may have been applied · ", title), UNKNOWN_CLASS
    else:
        headline, css = join("FAILED: ", title), FAILED_CLASS
    lines = [where]
    # The headline says "may have been applied": the details do not say it again.
    details = without_unknown_note(failure.details) if failure.unknown else failure.details
    if details:
        lines.append(safe(details, keep_newlines=True))
    if failure.unknown:
        lines.append(Content(UNKNOWN_CHECK))
    if failure.hint:
        lines.append(Content.styled(clean(failure.hint), "bold"))
    lines.append(Content.styled(LOG_HINT, "italic"))
    fill(panel, headline, css, classes, lines)


def fill(
    panel: Widget, headline: Content, css: str, classes: Iterable[str], lines: Sequence[Content]
) -> None:
    """Show a panel: its first Static the headline (styled by ``css``, one of ``classes``),
    its second the lines."""
    head, body = panel.query(Static).results()
    head.update(headline)
    for name in classes:
        head.set_class(name == css, name)
    body.update(Content("\n").join(lines))
    panel.display = True


# -- one kind of change's latest attempt -----------------------------------------------

SUCCESS_CLASS = "result-withdrawn"  # the Grants panel's success style
ATTEMPT_CLASSES: Final = (SUCCESS_CLASS, FAILED_CLASS, UNKNOWN_CLASS)


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

    def show_success(
        self, headline: Content, lines: Sequence[Content], at: str, *, history: bool = False
    ) -> None:
        """An answered attempt (made at ``at``, UTC).

        ``history``: what it set was changed since; the headline says what is
        now and the title says it is history, never a state the table contradicts.
        """
        self.border_title = (
            f"Result · at {at} UTC · since changed" if history else f"Result · {at} UTC"
        )
        fill(self, headline, "" if history else SUCCESS_CLASS, ATTEMPT_CLASSES, lines)

    def show_failure(self, failure: Failure, where: Content, at: str) -> None:
        """A failed or unknown attempt on ``where`` (made at ``at``, UTC)."""
        self.border_title = f"Result · {at} UTC"
        show_failure(self, failure, where, ATTEMPT_CLASSES)

    def hide(self) -> None:
        """Nothing to show (another project, or none)."""
        self.display = False


# -- a revocation's result -------------------------------------------------------------

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


class RevocationRecord(msgspec.Struct, frozen=True):
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
    lines = [Content(explanation), where_line(record)]
    named = (
        ("reportId", revocation.report_id),
        ("grantExpiresAt", revocation.grant_expires_at),
        ("grantRemainingAttempts", revocation.grant_remaining_attempts),
    )
    fields = [(name, safe(value)) for name, value in named if value is not None]
    if fields:
        lines.append(_fields(*fields))
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
        self.border_subtitle = notes(record)
        if record.revocation is None:
            failure = record.failure or Failure(record.error or "error", "", False, "")
            self.border_title = f"Result · attempt at {record.at.strftime('%H:%M:%S')} UTC"
            show_failure(self, failure, where_line(record), RESULT_CLASSES)
        else:
            words, _, css = OUTCOMES[record.revocation.outcome]
            self.border_title = "Result"
            fill(self, Content(words), css, RESULT_CLASSES, result_lines(record))


# -- the project returned by a rate limiter change -------------------------------------

NOT_SENT = "(not in the answer)"


def _label(text: str) -> Content:
    return Content.styled(text, "bold")


def _fields(*named: tuple[str, Content]) -> Content:
    """``name: value  name: value``, each name in bold."""
    return Content("  ").join(join(_label(f"{name}: "), value) for name, value in named)


def _value(value: str | None) -> Content:
    return safe(value) if value else Content.styled(NOT_SENT, "italic")


def headline(change: LimiterChange) -> Content:
    """``<id> is now ON/OFF`` and how that is known."""
    how = (
        "known from the response: the returned project lists it"
        if change.source is LimiterStateSource.RESPONSE
        else "known from the request: the answer did not list it; this is the state we sent"
    )
    return join(
        safe_id(change.limiter_id),
        " is now ",
        Content.styled(state_word(change.is_active), "bold reverse"),
        f" · {how}",
    )


def history_headline(change: LimiterChange, at: str, since: Mapping[str, bool]) -> Content:
    """``At 20:56:12 UTC rl-login was set ON · since changed to OFF``: the panel is history."""
    line = join(
        f"At {at} UTC ",
        safe_id(change.limiter_id),
        " was set ",
        Content.styled(state_word(change.is_active), "bold"),
    )
    now = since.get(change.limiter_id)
    if now is not None:
        line = join(line, " · since changed to ", Content.styled(state_word(now), "bold reverse"))
    others = [(i, v) for i, v in since.items() if i != change.limiter_id]
    if others:
        words = Content(", ").join(join(safe_id(i), " ", state_word(v)) for i, v in others)
        also = " · also changed since: " if now is not None else " · changed since: "
        line = join(line, also, words)
    return join(line, " (the table shows the state now)")


def listed_limiters(
    project: Project, known_before: Collection[str], at: str | None = None
) -> Content:
    """``rateLimits (n): id (name) ON, ...``; ids the inventory did not know are marked new.

    ``at``: the answer is history, its time is said (``rateLimits at 20:56:12 (n)``).
    """
    limiters = project.rate_limiters
    when = f" at {at} UTC" if at else ""
    if not limiters:
        return join(_label(f"rateLimits{when}: "), Content.styled("none listed", "italic"))
    parts: list[Content] = []
    for limiter in limiters:
        part = safe_id(limiter.id)
        if limiter.name:
            part = join(part, " (", safe(limiter.name), ")")
        part = join(part, " ", state_word(limiter.is_active))
        if limiter.id not in known_before:
            part = join(part, " ", Content.styled("new", "bold"))
        parts.append(part)
    return join(_label(f"rateLimits{when} ({len(limiters)}): "), Content(", ").join(parts))


def since_changed(change: LimiterChange, now: Mapping[str, bool | None]) -> dict[str, bool]:
    """The limiters the answer (or the change) states otherwise than ``now`` (id -> state now).

    ``now``: the states the table shows (unknown ones are not compared).
    """
    stated = {limiter.id: limiter.is_active for limiter in change.project.rate_limiters}
    stated[change.limiter_id] = change.is_active
    out: dict[str, bool] = {}
    for limiter_id, was in stated.items():
        state = now.get(limiter_id)
        if state is not None and was is not None and state != was:
            out[limiter_id] = state
    return out


def project_lines(
    change: LimiterChange,
    known_before: Collection[str],
    at: str | None = None,
    since: Mapping[str, bool] | None = None,
) -> list[Content]:
    """Every line of the panel, each built from plain, cleaned text.

    ``since``: what changed after the answer (:func:`since_changed`); then the
    lines say they are history, of ``at``.
    """
    stale = bool(since) and at is not None
    project = change.project
    protected = (
        NOT_SENT if project.is_protected is None else ("yes" if project.is_protected else "no")
    )
    server_key = SECRET_MASK if project.server_key else NOT_SENT
    first = history_headline(change, at or "", since or {}) if stale else headline(change)
    lines = [
        first,
        _fields(("name", _value(project.name)), ("url", _value(project.url))),
        # The secret never reaches the screen: only whether it was sent.
        _fields(
            ("isProtected", Content(protected)),
            ("siteKey", _value(project.site_key)),
            ("serverKey", Content(server_key)),
        ),
        listed_limiters(project, known_before, at if stale else None),
    ]
    if project.updated_at:
        lines.append(join(_label("updatedAt: "), safe(project.updated_at)))
    if not project.raw:
        lines.append(
            Content.styled("The service returned an empty object: nothing more is known.", "italic")
        )
    return lines


class ReturnedProjectPanel(VerticalScroll):
    """The current project's latest rate limiter change: the project returned, or the failure.

    Hidden until there is one. A failed or unknown attempt replaces an
    earlier answer, so the panel never shows a change that was not the last.
    """

    def compose(self) -> ComposeResult:
        yield Static(id="returned-project-headline")
        yield Static(id="returned-project-body")

    #: What is shown (the change, its time, what changed since): the same again is not redrawn.
    _shown_key: object = None

    def on_mount(self) -> None:
        self.border_title = "Returned project"
        self.border_subtitle = "escape hides"
        self.display = False

    def show(
        self,
        change: LimiterChange,
        known_before: Collection[str],
        at: str | None = None,
        since: Mapping[str, bool] | None = None,
    ) -> None:
        """Show ``change``'s project; ``known_before`` are the ids the table had.

        ``since`` (:func:`since_changed`): what the table shows otherwise now;
        then the panel is titled and worded as history of ``at``.
        """
        stale = bool(since) and at is not None
        key = (id(change), at, tuple(sorted((since or {}).items())) if stale else ())
        if key == getattr(self, "_shown_key", None) and self.display:
            return  # read again, nothing new: the operator's scroll stays
        self._shown_key = key
        self.border_title = (
            f"Returned project · at {at} UTC · since changed" if stale else "Returned project"
        )
        headline = self.query_one("#returned-project-headline", Static)
        headline.update("")
        headline.display = False
        body = Content("\n").join(project_lines(change, known_before, at, since))
        self.query_one("#returned-project-body", Static).update(body)
        self.display = True
        self.scroll_home(animate=False)

    def show_failure(self, failure: Failure, where: Content, at: str) -> None:
        """Show a failed or unknown attempt on ``where`` (made at ``at``, UTC)."""
        self._shown_key = None
        self.border_title = f"Last attempt · {at} UTC"
        self.query_one("#returned-project-headline", Static).display = True
        show_failure(self, failure, where, (FAILED_CLASS, UNKNOWN_CLASS))
        self.scroll_home(animate=False)

    def hide(self) -> None:
        """Forget the panel (another project was chosen, or escape)."""
        self.display = False


#: Input id -> (field name in messages, error Static id).
FIELDS: Final = {
    "visitor-id": ("Visitor id", "visitor-id-error"),
    "user-account-id": ("User account id", "user-account-id-error"),
}
NEED_ONE: Final = "Give a visitor id, a user account id, or both."
READY: Final = "Nothing is sent before you confirm."


def field_problem(label: str, value: str) -> tuple[str, bool]:
    """(message, blocking) for one field; ``("", False)`` when it is fine or empty.

    Surrounding spaces are allowed (sent exactly as typed) but pointed out:
    a pasted id with a trailing space matches no grant.
    """
    if value == "":
        return "", False
    try:
        subject_id(label.lower(), value)
    except ValidationError as exc:
        return f"{label} {exc.message}", True
    if value != value.strip():
        return f"{label} starts or ends with a space; it is sent exactly as typed", False
    return "", False


class RevocationForm(Vertical):
    """Two fields and a submit button; posts :class:`Submitted` when valid."""

    @dataclass
    class Submitted(Message):
        """The operator asked to revoke (values validated; None = not given)."""

        form: RevocationForm
        visitor_id: str | None
        user_account_id: str | None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="form-row"):
            yield Label(Content("Visitor id"))
            yield PlainInput(placeholder="subject.visitorId", id="visitor-id")
        yield Static("", id="visitor-id-error", classes="field-error")
        with Horizontal(classes="form-row"):
            yield Label(Content("User account id"))
            yield PlainInput(placeholder="subject.userAccountId", id="user-account-id")
        yield Static("", id="user-account-id-error", classes="field-error")
        with Horizontal(classes="buttons"):
            yield Button(Content("Revoke grant…"), id="revoke", variant="error", disabled=True)
            yield Static(Content(NEED_ONE), id="revoke-hint", classes="hint")

    def on_mount(self) -> None:
        self.check()

    # -- values and validation ------------------------------------------------------

    def values(self) -> tuple[str | None, str | None]:
        """(visitor id, user account id) as typed; None for an empty field."""
        visitor = self.query_one("#visitor-id", Input).value
        user = self.query_one("#user-account-id", Input).value
        return visitor or None, user or None

    def check(self) -> bool:
        """Validate both fields, show messages, enable submit; True when valid."""
        blocked = False
        for input_id, (label, error_id) in FIELDS.items():
            value = self.query_one(f"#{input_id}", Input).value
            message, blocking = field_problem(label, value)
            blocked = blocked or blocking
            error = self.query_one(f"#{error_id}", Static)
            error.update(safe(message))
            error.set_class(not blocking and bool(message), "field-note")
            error.display = bool(message)
        given = any(self.values())
        valid = given and not blocked
        self.query_one("#revoke", Button).disabled = not valid
        hint = READY if valid else (NEED_ONE if not given else "Fix the field above to revoke.")
        self.query_one("#revoke-hint", Static).update(Content(hint))
        return valid

    def clear(self) -> None:
        """Empty both fields (after a revocation was answered)."""
        for input_id in FIELDS:
            self.query_one(f"#{input_id}", Input).value = ""
        self.check()

    def focus_first(self) -> None:
        """Focus the visitor id field."""
        self.query_one("#visitor-id", Input).focus()

    # -- events ---------------------------------------------------------------------

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.check()

    @on(Input.Submitted, "#visitor-id")
    def _next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#user-account-id", Input).focus()

    @on(Input.Submitted, "#user-account-id")
    @on(Button.Pressed, "#revoke")
    def _submit(self, event: Input.Submitted | Button.Pressed) -> None:
        # Enter in the last field submits only when valid; the confirmation
        # dialog that follows still protects against a stray Enter.
        event.stop()
        if self.check():
            visitor, user = self.values()
            self.post_message(self.Submitted(self, visitor, user))


HISTORY_COLUMNS: Final = (
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
        for key, heading in HISTORY_COLUMNS:
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
