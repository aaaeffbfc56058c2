"""The project the service returned after a rate limiter change.

The rate limiter operation answers with the whole project, so this panel
shows what that answer says: name, url, isProtected, siteKey, the serverKey
**masked**, and the rate limiters it lists. It also says how the changed
limiter's new state is known: listed in the answer ("response"), or only
the state we sent because the answer did not say ("request").

The panel never contradicts the table: when a limiter it lists was changed
since (an undo, a timed revert, the CLI, a teammate), it says plainly that it
is history, when, and what each is now ("at 20:56:12 UTC rl-login was set ON
· since changed to OFF"), #27.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from bottui.api.models import SECRET_MASK, LimiterChange, LimiterStateSource, Project
from bottui.tui.error_log import Failure
from bottui.tui.widgets.attempt_failure import FAILED_CLASS, UNKNOWN_CLASS, failure_headline
from bottui.tui.widgets.attempt_failure import failure_lines as failure_body
from bottui.tui.widgets.limiter_table import state_word
from bottui.tui.widgets.safe import join, safe, safe_id

NOT_SENT = "(not in the answer)"


def _label(text: str) -> Content:
    return Content.styled(text, "bold")


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
        join(_label("name: "), _value(project.name), "  ", _label("url: "), _value(project.url)),
        join(
            _label("isProtected: "),
            protected,
            "  ",
            _label("siteKey: "),
            _value(project.site_key),
            "  ",
            _label("serverKey: "),
            # The secret never reaches the screen: only whether it was sent.
            server_key,
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
        text, css = failure_headline(failure)
        headline = self.query_one("#returned-project-headline", Static)
        headline.update(text)
        headline.set_class(css == FAILED_CLASS, FAILED_CLASS)
        headline.set_class(css == UNKNOWN_CLASS, UNKNOWN_CLASS)
        headline.display = True
        body = Content("\n").join([where, *failure_body(failure)])
        self.query_one("#returned-project-body", Static).update(body)
        self.display = True
        self.scroll_home(animate=False)

    def hide(self) -> None:
        """Forget the panel (another project was chosen, or escape)."""
        self.display = False
