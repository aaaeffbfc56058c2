"""The Rate limiters screen's dialogs: choose a state, add a limiter id, switch every marked one.

The first two open with focus where a stray Enter does nothing harmful: the
state choice on **Cancel** (it leads to a change), the add dialog in its id
field (adding an id to the inventory sends nothing).

Enable or disable every marked rate limiter (``o``/``f`` with rows marked): one
confirmation, then one change each. Each limiter's change is planned once
(:func:`bottui.ops.planning.plan_limiter`, as a single change is); one confirmation
lists every marked limiter, those a filter hides too (and says so), under the
profile's rules (read-only refuses before anything is planned, dry run shows
every request, a protected profile wants the project id typed, the reason is
asked once for all). The plans are then sent one after the other through
:func:`bottui.ops.mutations.apply`, each journaled like a single change, and
the result of each is listed honestly: *ok* (the state the service answered),
*failed* (the error; nothing changed), *unknown* (the request may have
arrived: check before trying again) or *not sent* (the run was stopped before it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.api.requests import path_id
from bottui.ops import mutations, planning
from bottui.ops.inventory_edits import check_limiter_name
from bottui.plaintext import clean
from bottui.store.journal.journal_records import Outcome
from bottui.tui.change_prompt import ChangePrompt, Timing, timing_of
from bottui.tui.screens.base import project_words, say
from bottui.tui.screens.dialogs import _Dialog, _Form, _InfoDialog
from bottui.tui.widgets.bulk_words import plural
from bottui.tui.widgets.limiter_table import MARK, SOURCE_WORDS, state_word
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe, safe_id

if TYPE_CHECKING:
    from bottui.api.models import LimiterChange
    from bottui.ops.planning import PlannedChange
    from bottui.store.inventory.inventory_records import LimiterEntry
    from bottui.tui.screens.limiters import LimitersScreen


class ChooseStateDialog(_Dialog):
    """The limiter's state is unknown: enable or disable? Returns True, False or None.

    bottui does not guess the opposite of a state it does not know; the
    operator says which state to send.
    """

    def __init__(self, limiter_id: str, limiter_name: str | None, project_id: str) -> None:
        super().__init__()
        self._limiter_id = limiter_id
        self._limiter_name = limiter_name
        self._project_id = project_id

    def compose(self) -> ComposeResult:
        name = join(" (", safe(self._limiter_name), ")") if self._limiter_name else Content("")
        with Vertical():
            yield Label(Content("Rate limiter state unknown"), classes="dialog-title")
            yield Static(
                join(
                    "bottui does not know whether rate limiter ",
                    safe_id(self._limiter_id),
                    name,
                    " of project ",
                    safe_id(self._project_id),
                    " is on or off. Enable or disable it?",
                ),
                id="choose-body",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel", classes="closes")
                yield Button("Enable (ON)", id="enable", variant="warning")
                yield Button("Disable (OFF)", id="disable", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed, "#enable, #disable")
    def _chosen(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "enable")


class AddLimiterDialog(_Dialog, _Form):
    """Add a rate limiter id (and optional name) to the inventory.

    Returns ``(id, name or None)`` or None. Nothing is sent to the service:
    the API cannot list limiters, so the operator teaches bottui the ids.
    """

    SUBMIT = "add"

    def __init__(self, project_id: str) -> None:
        super().__init__()
        self._project_id = project_id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Add a rate limiter id"), classes="dialog-title")
            yield Static(
                join(
                    "To project ",
                    safe_id(self._project_id),
                    ". Only the inventory changes; nothing is sent.",
                )
            )
            yield Label(Content("Rate limiter id"))
            yield PlainInput(placeholder="rate_limiter_id", id="limiter-id")
            yield Static("", id="limiter-id-error", classes="field-error")
            yield Label(Content("Name (optional)"))
            yield PlainInput(placeholder="what the team calls it", id="limiter-name")
            yield Static("", id="limiter-name-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel", classes="closes")
                yield Button("Add", id="add", variant="primary", disabled=True)

    def result(self) -> tuple[str, str | None] | None:
        """Validate both fields, show the messages, and return the values if valid.

        Adding only touches the inventory, so Enter may add when valid.
        """
        raw_id = self.query_one("#limiter-id", Input).value
        raw_name = self.query_one("#limiter-name", Input).value
        id_error = ""
        if raw_id:
            try:
                path_id("rate limiter id", raw_id)
            except ValidationError as exc:
                id_error = f"Rate limiter id {exc.message}"
        name_error = None
        try:
            check_limiter_name(raw_name)
        except ValidationError as exc:
            name_error = exc.message
        say(self.query_one("#limiter-id-error", Static), safe(id_error) if id_error else None)
        name_words = safe(f"Name {name_error}") if name_error else None
        say(self.query_one("#limiter-name-error", Static), name_words)
        valid = bool(raw_id) and not id_error and not name_error
        return (raw_id, raw_name or None) if valid else None


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


async def confirmed_marked(
    screen: LimitersScreen,
    account: str,
    project: str,
    entries: list[LimiterEntry],
    hidden: set[str],
    new_state: bool,
) -> list[PlannedChange[Any]]:
    """Plan each marked limiter's change, ask once; the plans as confirmed (empty: none to send).

    A plan that fails, a cancel, or a duration one of them refuses: nothing is sent.
    """
    services = screen.services
    session = services.session
    try:
        plans = [
            await planning.plan_limiter(session, account, project, entry.id, new_state)
            for entry in entries
        ]
    except Exception as exc:  # reported like any failure; nothing is sent
        services.flush_warnings()
        services.report(exc)
        return []
    services.flush_warnings()
    verb = "Enable" if new_state else "Disable"
    intro = join(
        f"{verb} {plural(len(plans), 'rate limiter')} of project ",
        project_words(screen.services, account, project),
        ".\nNew state: ",
        Content.styled("ON" if new_state else "OFF", "bold reverse"),
        " · one request each, in this order"
        + (f" · {len(hidden):,} of them hidden by the filter" if hidden else "")
        + ":",
    )
    requests = [request for plan in plans for request in plan.requests]
    prompt = ChangePrompt(
        title=f"{verb} {plural(len(plans), 'rate limiter')}?",
        body=intro,
        confirm_label=f"{verb} {len(plans):,}",
        project_id=plans[0].confirmation.typed or project,
        plan=partial(list, requests),
        needs=plans[0].confirmation,
        listing=_listing(entries, hidden),
        timing=_timing(plans),
        decision=_decision(plans, new_state, hidden),
    )
    decided = await services.decided(prompt, plans)
    if decided is None:
        return []
    confirmed = [services.decided_plan(plan, decided) for plan in plans]
    return [p for p in confirmed if p is not None] if None not in confirmed else []


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


async def send_all(
    screen: LimitersScreen, plans: list[PlannedChange[Any]], names: dict[str, str | None]
) -> list[LimiterResult]:
    """Send each plan, in order; every outcome kept (a failure does not stop the others)."""

    def result(plan: PlannedChange[Any], outcome: str, detail: str) -> LimiterResult:
        limiter_id = str(getattr(plan.target, "limiter_id", ""))
        return LimiterResult(limiter_id, names.get(limiter_id), outcome, detail)

    services = screen.services
    results: list[LimiterResult] = []
    for index, plan in enumerate(plans):
        label = f"rate limiter {index + 1:,} of {len(plans):,}"
        try:
            with services.working(label):
                applied = await mutations.apply(services.session, plan, confirmed=True)
        except asyncio.CancelledError:
            # Stopped (the app quits): the one in flight is journaled by apply;
            # the rest were never sent.
            results += [result(p, NOT_SENT, "the run was stopped") for p in plans[index:]]
            raise
        except Exception as exc:
            services.last_error = exc  # `e` shows it whole
            unknown = mutations.error_outcome(exc) in (Outcome.UNKNOWN, Outcome.INTERRUPTED)
            results.append(result(plan, UNKNOWN if unknown else FAILED, clean(str(exc))))
            continue
        change: LimiterChange = applied.value
        source = getattr(change.source, "value", str(change.source))
        known = f"now {state_word(change.is_active)} ({SOURCE_WORDS.get(source, source)})"
        results.append(result(plan, OK, known))
    return results


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
