"""Enable or disable every marked rate limiter: one confirmation, then one change each.

The Rate limiters screen's ``o``/``f`` with rows marked come here. Each
limiter's change is planned once (:func:`bottui.ops.plan.plan_limiter`, as a
single change is); one confirmation lists every marked limiter, those a
filter hides too (and says so), under the profile's rules (read-only refuses
before anything is planned, dry run shows every request, a protected profile
wants the project id typed, the reason is asked once for all). The plans are
then sent one after the other through :func:`bottui.ops.mutations.apply`, each
journaled like a single change, and the result of each is listed honestly:
*ok* (the state the service answered), *failed* (the error; nothing changed),
*unknown* (the request may have arrived: check before trying again) or
*not sent* (the run was stopped before it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Label, Static

from bottui.plaintext import clean
from bottui.tui.change_prompt import (
    READ_ONLY_REFUSAL,
    ChangePrompt,
    Decided,
    Timing,
    plan_confirmation,
    timing_of,
)
from bottui.tui.screens.dialogs import _InfoDialog
from bottui.tui.widgets.bulk_words import plural
from bottui.tui.widgets.limiter_table import MARK, SOURCE_WORDS, state_word
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.api.models import LimiterChange
    from bottui.ops.plan import PlannedChange
    from bottui.store.inventory.records import LimiterEntry
    from bottui.tui.screens.limiters import LimitersScreen
    from bottui.tui.widgets.limiter_table import LimiterTable

#: Outcome words, each padded to one width in the results list.
OK: Final = "ok"
FAILED: Final = "failed"
UNKNOWN: Final = "unknown"
NOT_SENT: Final = "not sent"
_WIDTH: Final = max(len(OK), len(FAILED), len(UNKNOWN), len(NOT_SENT))


class LimiterResult(NamedTuple):
    """What one marked limiter's change did."""

    limiter_id: str
    name: str | None
    #: :data:`OK`, :data:`FAILED`, :data:`UNKNOWN` or :data:`NOT_SENT`.
    outcome: str
    #: The new state and how it is known, or the error (cleaned).
    detail: str


def marks_line(marked: int, hidden: int) -> Content:
    """The hint under the table while limiters are marked."""
    hidden_words = f" ({hidden:,} hidden by the filter)" if hidden else ""
    return Content(
        f"{MARK} {marked:,} marked{hidden_words} · o or f switches them all, after one "
        "confirmation · space unmarks"
    )


def _timing(plans: list[PlannedChange[Any]]) -> Timing | None:
    """The duration field the marked limiters' change may have (#15).

    A duration applies to every one of them: it can be used only when each
    one's state before is known.
    """
    unknown = sum(1 for plan in plans if plan.previous is None)
    timing = timing_of(plans[0])
    if unknown and timing is not None:
        timing = Timing(
            unavailable=f"No duration: the state before this change of {unknown:,} of them is "
            "not known, so they could never revert."
        )
    return timing


def switch_marked(screen: LimitersScreen, table: LimiterTable, new_state: bool) -> None:
    """Plan every marked limiter's change, confirm them once, send them one by one."""
    from bottui.ops import plan as planning

    services = screen.services
    current = services.current
    assert current is not None
    if services.read_only:  # refused before anything is planned or asked
        from bottui.api.errors import RefusedError

        services.report(RefusedError("Read-only profile", READ_ONLY_REFUSAL.reason))
        return
    account, project = current
    entries = table.marked_entries
    hidden = table.hidden_marks
    session = services.session
    verb = "Enable" if new_state else "Disable"

    async def plan_all() -> None:
        from bottui.ops import collisions

        plans: list[PlannedChange[Any]] = []
        recent: list[str] = []
        try:
            for entry in entries:
                plan = await planning.plan_limiter(session, account, project, entry.id, new_state)
                plans.append(plan)
                # Who else changed each lately (never raises for the team store).
                found = await collisions.check(session, plan)
                if found is not None and found.warns:
                    recent += found.lines()
        except Exception as exc:  # reported like any failure; nothing is sent
            services.flush_warnings()
            services.report(exc)
            return
        services.flush_warnings()
        await confirm(plans, recent)

    async def confirm(plans: list[PlannedChange[Any]], recent: list[str]) -> None:
        requests = [request for plan in plans for request in plan.requests]
        intro = join(
            f"{verb} {plural(len(plans), 'rate limiter')} of project ",
            safe_id(project),
            _project_label(screen, account, project),
            ", account ",
            safe_id(account),
            ".\nNew state: ",
            Content.styled("ON" if new_state else "OFF", "bold reverse"),
            " · one request each, in this order"
            + (f" · {len(hidden):,} of them hidden by the filter" if hidden else "")
            + ":",
        )
        prompt = ChangePrompt(
            title=f"{verb} {plural(len(plans), 'rate limiter')}?",
            body=intro,
            confirm_label=f"{verb} {len(plans):,}",
            project_id=plans[0].confirmation.typed or project,
            plan=lambda: requests,
            needs=plan_confirmation(plans[0].confirmation),
            recent=tuple(recent),
            listing=_listing(entries, hidden),
            timing=_timing(plans),
            decision=_decision(plans, new_state, hidden),
        )
        prompt = await services.timed_prompt(prompt)  # is an executor known?
        prompt = await services.supersedes_prompt(prompt, plans)  # pending timed reverts

        def decided(decision: Decided) -> None:
            confirmed = [services.decided_plan(p, decision) for p in plans]
            if all(p is not None for p in confirmed):  # a refusal is reported: none sent
                send([p for p in confirmed if p is not None])

        services.decide(prompt, decided)

    def send(plans: list[PlannedChange[Any]]) -> None:
        names = {entry.id: entry.name for entry in entries}
        from bottui.tui.screens.limiter_attempts import MarkedSwitched

        screen.call(
            lambda: _send_all(screen, plans, names),
            label=f"{verb} {plural(len(plans), 'rate limiter')}",
            done=lambda results: MarkedSwitched(verb, results),
        )

    screen.run_worker(plan_all(), name="Planning", group="plan", exit_on_error=False)


def _decision(plans: list[PlannedChange[Any]], new_state: bool, hidden: Any) -> str:
    """``2 rate limiters -> OFF (before: 1 ON, 1 OFF) · 1 hidden by the filter``."""
    before: dict[str, int] = {}
    for plan in plans:
        word = "?" if plan.previous is None else plan.previous.text
        before[word] = before.get(word, 0) + 1
    counts = ", ".join(f"{n} {word}" for word, n in sorted(before.items()))
    line = f"{plural(len(plans), 'rate limiter')} -> {'ON' if new_state else 'OFF'}"
    line += f" (before: {counts})"
    return line + (f" · {len(hidden):,} hidden by the filter" if hidden else "")


def _project_label(screen: LimitersScreen, account: str, project: str) -> Content:
    name = screen.services.project_name(account, project)
    return join(" (", safe(name), ")") if name else Content("")


def _listing(entries: Sequence[LimiterEntry], hidden: set[str]) -> Content:
    """One line per marked limiter: id, name, last known state, and whether the filter hides it."""
    lines: list[Content] = []
    for entry in entries:
        line = join(f"{MARK} ", safe_id(entry.id))
        if entry.name:
            line = join(line, " (", safe(entry.name), ")")
        # When it was learned is in the table; one line per limiter here.
        known = state_word(entry.is_active)
        how = clean(SOURCE_WORDS.get(entry.source, entry.source))
        line = join(line, f" · last known {known} ({how})")
        if entry.id in hidden:
            line = join(line, " · ", Content.styled("hidden by the filter", "italic"))
        lines.append(line)
    return Content("\n").join(lines)


async def _send_all(
    screen: LimitersScreen, plans: list[PlannedChange[Any]], names: dict[str, str | None]
) -> list[LimiterResult]:
    """Send each plan, in order; every outcome kept (a failure does not stop the others)."""
    import asyncio

    from bottui.ops import mutations
    from bottui.ops.plan import LimiterTarget
    from bottui.store.journal.records import Outcome

    services = screen.services
    results: list[LimiterResult] = []
    for index, plan in enumerate(plans):
        target = plan.target
        assert isinstance(target, LimiterTarget)
        limiter_id = target.limiter_id
        label = f"rate limiter {index + 1:,} of {len(plans):,}"
        try:
            with services.working(label):
                applied = await mutations.apply(services.session, plan, confirmed=True)
        except asyncio.CancelledError:
            # Stopped (the app quits): the one in flight is journaled by apply;
            # the rest were never sent.
            results += [
                LimiterResult(_id_of(p), names.get(_id_of(p)), NOT_SENT, "the run was stopped")
                for p in plans[index:]
            ]
            raise
        except Exception as exc:
            services.last_error = exc  # `e` shows it whole
            unknown = mutations.error_outcome(exc) in (Outcome.UNKNOWN, Outcome.INTERRUPTED)
            results.append(
                LimiterResult(
                    limiter_id,
                    names.get(limiter_id),
                    UNKNOWN if unknown else FAILED,
                    clean(str(exc)),
                )
            )
            continue
        change: LimiterChange = applied.value
        source = getattr(change.source, "value", str(change.source))
        results.append(
            LimiterResult(
                limiter_id,
                names.get(limiter_id),
                OK,
                f"now {state_word(change.is_active)} ({SOURCE_WORDS.get(source, source)})",
            )
        )
    return results


def _id_of(plan: PlannedChange[Any]) -> str:
    return str(getattr(plan.target, "limiter_id", ""))


class MarkedResultsDialog(_InfoDialog):
    """The result of each marked limiter's change, in the order sent."""

    # The list scrolls; the note and Close stay on screen at 80x24.
    DEFAULT_CSS = "MarkedResultsDialog VerticalScroll { max-height: 35vh; }"

    def __init__(self, verb: str, results: Sequence[LimiterResult]) -> None:
        super().__init__()
        self._verb = verb
        self._results = list(results)

    def compose(self) -> ComposeResult:
        counts = {word: 0 for word in (OK, FAILED, UNKNOWN, NOT_SENT)}
        for result in self._results:
            counts[result.outcome] += 1
        summary = " · ".join(f"{n:,} {word}" for word, n in counts.items() if n or word == OK)
        with Vertical():
            yield Label(
                Content(f"{self._verb} {plural(len(self._results), 'rate limiter')}: {summary}"),
                classes="dialog-title",
                id="results-title",
            )
            with VerticalScroll():
                yield Static(_result_lines(self._results), id="results-list")
            note = "Each change is in the Journal (5)."
            if counts[FAILED] or counts[UNKNOWN] or counts[NOT_SENT]:
                note = (
                    "Those not ok stay marked: o or f tries them again (check an unknown "
                    "one first: its request may have arrived). e shows the last error. " + note
                )
            yield Static(Content(note), id="results-note", classes="hint")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close", id="close", variant="primary")


def _result_lines(results: Sequence[LimiterResult]) -> Content:
    lines: list[Content] = []
    for result in results:
        word = Content.styled(f"{result.outcome.upper():<{_WIDTH}}", _STYLES[result.outcome])
        line = join(word, "  ", safe_id(result.limiter_id))
        if result.name:
            line = join(line, " (", safe(result.name), ")")
        lines.append(join(line, " · ", safe(result.detail)))
    return Content("\n").join(lines)


#: Outcome -> style; the word itself carries the meaning (NO_COLOR).
_STYLES: Final = {OK: "bold", FAILED: "bold reverse", UNKNOWN: "bold underline", NOT_SENT: "dim"}
