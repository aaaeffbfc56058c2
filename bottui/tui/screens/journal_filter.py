"""The Journal screen's filter dialog (``F``, ``/``): every filter in one place.

Project (this one, every one, or another id), operation, outcome, operator
(exact), time range (ISO 8601 or ``15m``/``2h``/``3d`` ago) and a text the
reason holds. It returns a :class:`JournalFilters`; the screen turns it into
the store's query (:func:`bottui.ops.journal_view.entry_query`), read off
the event loop and a page at a time as before. The ``p``/``o``/``f`` keys
still cycle the first three.

Typed texts are compared, never shown raw: the filter line shows them
through ``safe()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Final

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from bottui.api.errors import ValidationError
from bottui.ops import journal_view
from bottui.store.journal.records import Outcome
from bottui.store.utc import parse_time, stamp
from bottui.tui.widgets.untrusted_text import PlainInput, safe

#: Operation choices: (label, value); None: every operation.
OPERATIONS: Final[tuple[tuple[str, str | None], ...]] = (
    ("every operation", None),
    *((short, str(op)) for op, short in journal_view.OPERATION_NAMES.items()),
)
#: Outcome choices: the groups first, then each word.
OUTCOMES: Final[tuple[tuple[str, str | None], ...]] = (
    ("every outcome", None),
    (journal_view.UNFINISHED, journal_view.UNFINISHED),
    *((group, group) for group in journal_view.OUTCOME_GROUPS),
    *((f"  {word}", str(word)) for word in Outcome),
)
_ALL: Final = "all"
_CURRENT: Final = "current"
_OTHER: Final = "other"


@dataclass(frozen=True)
class JournalFilters:
    """What the Journal screen shows; None: no filter on that field.

    ``project`` is ``"current"``, ``"all"`` or ``"other"`` (then
    ``project_id`` names it, in any account). ``since``/``until`` are ISO
    8601 as typed or resolved from ``2h`` (UTC).
    """

    project: str = _CURRENT
    project_id: str | None = None
    operation: str | None = None
    outcome: str | None = None
    operator: str | None = None
    since: str | None = None
    until: str | None = None
    reason: str | None = None

    @property
    def narrowed(self) -> bool:
        """True when anything beyond the project narrows the rows."""
        return any(
            v is not None
            for v in (self.operation, self.outcome, self.operator, self.since, self.until)
        ) or (self.reason is not None)

    def cleared(self) -> JournalFilters:
        """No filter but the project."""
        return JournalFilters(project=self.project, project_id=self.project_id)


def resolve_time(field: str, text: str, now: datetime) -> str | None:
    """A time field as ISO 8601: ``2h`` is two hours before ``now``; blank: None.

    Raises:
        ValidationError: neither a relative time nor an ISO 8601 one.
    """
    if not text.strip():
        return None
    typed = text.strip()
    # The CLI's grammar (journal_view.time_of): ISO 8601 kept as typed, a duration ago resolved.
    moment = journal_view.time_of(f"--{field}", typed, now)
    try:
        parse_time(typed)
    except ValueError:
        return stamp(moment)
    return typed


class FilterDialog(ModalScreen[JournalFilters | None]):
    """Every journal filter in one dialog; returns the filters, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="journal.filter.close"),
    ]
    DEFAULT_CSS = """
    FilterDialog { align: center middle; }
    FilterDialog #filter-grid {
        grid-size: 2; grid-columns: 12 1fr; grid-rows: 1; grid-gutter: 0 1; height: auto;
    }
    FilterDialog #filter-problem { color: $error; text-style: bold; height: auto; }
    """

    def __init__(
        self,
        filters: JournalFilters,
        current: str | None,
        now: datetime,
        *,
        first: str = "filter-operation",
    ) -> None:
        super().__init__()
        self._first = first
        self._filters = filters
        self._current = current
        self._now = now

    def compose(self) -> ComposeResult:
        f = self._filters
        here = f"this project ({self._current})" if self._current else "this project (none)"
        projects = [(here, _CURRENT), ("every project", _ALL), ("another project:", _OTHER)]
        with Vertical(classes="journal-dialog", id="filter-box"):
            yield Label(Content("Journal filters"), classes="dialog-title")
            yield Static(
                Content(
                    "Blank: no filter. Operator: exactly as journaled. Times: ISO 8601 "
                    "(UTC unless an offset is given) or 15m, 2h, 3d ago. Reason: any part, "
                    "any case."
                ),
                classes="hint",
            )
            with Grid(id="filter-grid"):
                yield Label("Project")
                yield _select(projects, f.project, "filter-project")
                yield Label("  id")
                yield PlainInput(
                    f.project_id or "",
                    placeholder="project id",
                    id="filter-project-id",
                    compact=True,
                )
                yield Label("Operation")
                yield _select(OPERATIONS, f.operation, "filter-operation")
                yield Label("Outcome")
                yield _select(OUTCOMES, f.outcome, "filter-outcome")
                yield Label("Operator")
                yield _input(f.operator, "e.g. alice or bob@bastion-2", "filter-operator")
                yield Label("Since")
                yield _input(f.since, "e.g. 2h or 2026-11-21T03:00", "filter-since")
                yield Label("Until")
                yield _input(f.until, "e.g. 30m or 2026-11-21", "filter-until")
                yield Label("Reason holds")
                yield _input(f.reason, "a part of the reason", "filter-reason")
            yield Static("", id="filter-problem")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Clear", id="clear")
                yield Button("Cancel", id="cancel")
                yield Button("Filter", id="apply", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#filter-problem", Static).display = False
        self.query_one(f"#{self._first}").focus()

    def action_close(self) -> None:
        """Close without a change."""
        self.dismiss(None)

    def _text(self, widget_id: str) -> str | None:
        value = self.query_one(f"#{widget_id}", Input).value
        return value if value.strip() else None

    def _choice(self, widget_id: str) -> str | None:
        value = self.query_one(f"#{widget_id}", Select).value
        return value if isinstance(value, str) else None

    def filters(self) -> JournalFilters:
        """The filters as typed.

        Raises:
            ValidationError: a time is not one, or the range is empty.
        """
        project = self._choice("filter-project") or _CURRENT
        project_id = self._text("filter-project-id")
        if project_id is not None:
            project = _OTHER  # typing an id means that project
        elif project == _OTHER:
            raise ValidationError("project", "type the project id, or choose this/every project")
        since = resolve_time("since", self.query_one("#filter-since", Input).value, self._now)
        until = resolve_time("until", self.query_one("#filter-until", Input).value, self._now)
        if since is not None and until is not None:
            journal_view.entry_query(journal_view.JournalQuery(since=since, until=until))
        return JournalFilters(
            project=project,
            project_id=project_id,
            operation=self._choice("filter-operation"),
            outcome=self._choice("filter-outcome"),
            operator=self._text("filter-operator"),
            since=since,
            until=until,
            reason=self._text("filter-reason"),
        )

    @on(Input.Submitted)
    @on(Button.Pressed, "#apply")
    def _apply(self) -> None:
        try:
            chosen = self.filters()
        except ValidationError as exc:
            problem = self.query_one("#filter-problem", Static)
            problem.update(safe(f"{exc.field.lstrip('-')}: {exc.message}"))
            problem.display = True
            return
        self.dismiss(chosen)

    @on(Button.Pressed, "#clear")
    def _clear(self) -> None:
        self.dismiss(JournalFilters())

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


def _select(
    options: tuple[tuple[str, str | None], ...] | list[tuple[str, str]],
    value: str | None,
    widget_id: str,
) -> Select[str]:
    # Select has no None value: "every ..." is the blank choice.
    choices = [(label, v) for label, v in options if v is not None]
    blank = next((label for label, v in options if v is None), None)
    return Select(
        choices,
        prompt=blank or "choose",
        allow_blank=blank is not None,
        value=value if value is not None else Select.NULL,
        id=widget_id,
        compact=True,
    )


def _input(value: str | None, placeholder: str, widget_id: str) -> PlainInput:
    return PlainInput(value or "", placeholder=placeholder, id=widget_id, compact=True)


__all__ = ["OPERATIONS", "OUTCOMES", "FilterDialog", "JournalFilters", "resolve_time"]
