"""What every main screen shares: the context bar, the key bar, the worker plumbing, the filter.

A screen reaches the app only through :attr:`BottuiScreen.services` (a
:class:`~bottui.tui.services.TuiServices`), never the app class. An action
reads top to bottom in one ``@work`` method: it plans
(:meth:`TuiServices.planned`), awaits the operator's confirmation of that plan
(:meth:`TuiServices.confirmed`, ``push_screen_wait``), sends the confirmed plan
inside :meth:`BottuiScreen.sending` and posts a message with the answer. The
key's own handler says first, at once, what refuses the action (no project, a
read-only profile), so the keys typed after it meet the guard in time. Every
worker's failure reaches the one handler
(:func:`~bottui.tui.services.worker_failed`, then the one error renderer
:meth:`TuiServices.report`). An answer that arrives once its screen is
detached (the app closing) is dropped in one place, :func:`on_answer`: the
journal has it, and no screen is there to show it. Changes never run in an
``exclusive`` group: a later action must not cancel a change in flight.

:class:`FilterableScreen` is a main screen whose table ``/`` filters (Projects,
Rate limiters, Thresholds). ``/`` opens a line above the screen's table
(:class:`FilterBar`, mounted on first use: most sessions never filter, and the
first frame is faster without it). Typing narrows the table to the rows whose
visible text holds what was typed (any case); Enter goes back to the table with
the filter kept and shown; Esc (in the field, or on the screen while a filter is
kept) clears it. The table keeps every row
(:attr:`~bottui.tui.widgets.entry_table.EntryTable.all_entries`): actions that
must see rows a filter hides (marked limiters) still do.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from inspect import isawaitable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import Worker, get_current_worker

from bottui.tui.perf.textual_private import still_shown
from bottui.tui.services import (
    InventoryChanged,
    ProjectChosen,
    TuiServices,
    find_services,
    services_of,
    worker_failed,
)
from bottui.tui.ui_rules import ContextBar, KeyBar, focus_shown, release_hidden_focus
from bottui.tui.widgets.entry_table import EntryTable
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.tui.error_report import Attempt

    # Imported when the bar is first mounted, after start-up (~2.5 ms).
    from bottui.tui.widgets.entry_table import FilterBar, FilterInput


T = TypeVar("T")
S = TypeVar("S", bound="BottuiScreen")
M = TypeVar("M", bound=Message)

#: What a screen of the current project says when there is none.
NO_PROJECT = "No project selected. Press 1 (Projects) to choose one."

#: Under the context bar on every screen while the profile is read-only.
READ_ONLY_BANNER = "READ-ONLY profile: every change is refused; nothing is sent"


def on_answer(
    *messages: type[Message],
) -> Callable[[Callable[[S, M], Awaitable[None] | None]], Callable[[S, M], Awaitable[None]]]:
    """``@on(*messages)`` for a worker's answer to its screen, dropped once the screen is detached.

    The app may close while a change is answered (quit after waiting for it):
    the journal has the answer, and no screen is there to show it; showing it
    would mount on a detached screen and raise.
    """

    def decorate(
        handler: Callable[[S, M], Awaitable[None] | None],
    ) -> Callable[[S, M], Awaitable[None]]:
        async def shown_if_attached(screen: S, message: M) -> None:
            if still_shown(screen):
                shown = handler(screen, message)
                if isawaitable(shown):
                    await shown

        # Not functools.wraps: Textual would read the handler's own signature through it.
        shown_if_attached.__doc__ = handler.__doc__

        for message in messages:
            shown_if_attached = on(message)(shown_if_attached)
        return shown_if_attached

    return decorate


def say(line: Static, words: Content | None) -> None:
    """``words`` on ``line`` (an error or hint under a field), or the line hidden (None)."""
    line.update(words or "")
    line.display = words is not None


def project_words(services: TuiServices, account: str, project: str) -> Content:
    """``shop-prod (Shop), account acme``: a project as a confirmation names it (the
    inventory's name, when it knows one)."""
    name = services.project_name(account, project)
    label = join(" (", safe(name), ")") if name else Content("")
    return join(safe_id(project), label, ", account ", safe_id(account))


class UsesServices:
    """Mixed into a screen: what it uses of the app (:attr:`services`), and every failure
    of its workers sent to the one handler (:func:`~bottui.tui.services.worker_failed`)."""

    @property
    def services(self) -> TuiServices:
        """What this screen uses of the app: session, current project, reports..."""
        return services_of(self)  # type: ignore[arg-type]  # mixed into a Screen

    on_worker_state_changed = worker_failed


class BottuiScreen(Screen[None], UsesServices):
    """Base of the five main screens."""

    #: Title shown in the help screen and the command palette.
    SCREEN_TITLE: ClassVar[str] = ""
    BINDINGS: ClassVar[list[BindingType]] = []

    def compose(self) -> ComposeResult:
        yield ContextBar()
        banner = Static(Content(READ_ONLY_BANNER), id="readonly-banner", classes="banner-readonly")
        banner.display = self._read_only()
        yield banner
        yield from self.compose_body()
        yield KeyBar()

    def project_title(self) -> Content:
        """``Rate limiters · acme / shop-prod (Shop)``: the title and the current project."""
        title = Content(self.SCREEN_TITLE)
        current = self.services.current
        if current is not None:
            title = join(title, " · ", safe_id(current[0]), " / ", safe_id(current[1]))
            name = self.services.project_name(*current)
            if name:
                title = join(title, " (", safe(name), ")")
        return title

    def current_or_say(self) -> tuple[str, str] | None:
        """The current project; None, and a toast saying how to choose one, when none is."""
        current = self.services.current
        if current is None:
            self.notify(NO_PROJECT, markup=False)
        return current

    def _read_only(self) -> bool:
        services = find_services(self)
        return services is not None and services.read_only

    def compose_body(self) -> ComposeResult:
        """The screen's own widgets, between the context bar and the key bar."""
        yield from ()

    @contextmanager
    def sending(self, label: str, attempt: Attempt | None = None) -> Iterator[None]:
        """Around a change sent in a worker: "working", the attempt on a failure, the team told.

        ``label`` is what the working indicator says meanwhile, and the worker's
        name: a failure with no attempt is logged under it
        (:func:`~bottui.tui.services.worker_failed`). ``attempt`` is tagged onto a failure
        (the error log, the token hint and the panels read it); what the change
        journaled goes to the team store at once, sent or not.
        """
        services = self.services
        get_current_worker().name = label
        try:
            with services.working(label):
                yield
        except BaseException as exc:
            if attempt is not None:
                # Here, not at the top: 2.5 ms the first frame does not need.
                from bottui.tui.error_report import tag

                tag(exc, attempt)
            raise
        finally:
            services.share_soon()  # what it journaled goes to the team store now
        services.flush_warnings()

    def load(
        self,
        read: Callable[[], Awaitable[T]],
        show: Callable[[T], None],
        *,
        group: str = "read",
    ) -> Worker[None]:
        """Await a store read in a worker, then ``show`` its result on the screen.

        Of the reads of one ``group``, only the latest started is shown: an
        older one that ends later is dropped (not cancelled: a cancelled
        worker would fail whoever waits for the app's workers). Errors go to the
        app like any worker's (:func:`~bottui.tui.services.worker_failed`); nothing
        shows "working" (reads are quick, and a read waiting on a lock must not look
        like a change under way).
        """
        services = self.services
        generations: dict[str, int] = self.__dict__.setdefault("_read_generations", {})
        mine = generations[group] = generations.get(group, 0) + 1

        async def run() -> None:
            result = await read()
            services.flush_warnings()
            if generations.get(group) == mine:
                show(result)

        return self.run_worker(run, name=group, group=group, exit_on_error=False)

    def load_after_refresh(
        self,
        read: Callable[[], Awaitable[T]],
        show: Callable[[T], None],
        *,
        group: str = "read",
        after: Callable[[Callable[[], None]], None] | None = None,
    ) -> None:
        """:meth:`load` once the screen has refreshed, unless a newer read of ``group`` began.

        ``after`` schedules the start instead of ``call_after_refresh`` (a
        table's ``call_after_drawn``: once the first page is on screen).

        A list's rest is read after its first page's frame. Should another read
        of the group start meanwhile (an inventory change, the start-up's own
        re-read), the deferred one must not start after it: being the latest,
        it would be shown and put its older rows over the newer ones.
        """
        generations: dict[str, int] = self.__dict__.setdefault("_read_generations", {})
        scheduled = generations.get(group, 0)

        def start() -> None:
            if generations.get(group, 0) == scheduled:
                self.load(read, show, group=group)

        (after or self.call_after_refresh)(start)

    @on(ProjectChosen)
    @on(InventoryChanged)
    def _refresh_context(self) -> None:
        for bar in self.query(ContextBar):
            bar.refresh_context()
        for banner in self.query("#readonly-banner"):
            banner.display = self._read_only()
        self.refresh_data()

    def on_screen_resume(self) -> None:
        self._refresh_context()
        # Textual's auto-focus (run after this handler) may pick a hidden
        # table: then nothing is focused, and the screen's keys work.
        self.call_later(release_hidden_focus, self)

    def refresh_data(self) -> None:
        """Re-read what the screen shows (inventory, current project)."""

    def leave_profile(self) -> list[str]:
        """Drop what belonged to the profile being left; what was dropped, in words.

        Called on every main screen by a profile switch, before the new
        profile's data is read (a table filter, marked rows): nothing of the
        old profile is kept silently.
        """
        return []

    def key_help_rows(self) -> list[tuple[str, str]]:
        """(key, description) rows for the help screen: every active binding."""
        rows: list[tuple[str, str]] = []
        seen: set[str] = set()
        for key, active in self.active_bindings.items():
            binding = active.binding
            if binding.description and key not in seen:
                seen.add(key)
                rows.append((self.app.get_key_display(binding), binding.description))
        return rows


class FilterableScreen(BottuiScreen):
    """A main screen with one table that ``/`` filters."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: taken in the app's own key loop, so the keys typed right
        # after it are routed once the field has focus (the table would pass
        # them on only after those keys were routed to it: "t" = token).
        Binding(
            "slash", "filter", "Filter the table", show=False, id="table.filter", priority=True
        ),
        Binding("escape", "clear_filter", "Clear the filter", show=False, id="table.unfilter"),
    ]

    def filter_table(self) -> EntryTable[Any]:
        """The table ``/`` filters (the screen's first)."""
        return self.query(EntryTable).first()

    def _filter_bar(self) -> FilterBar | None:
        bars = self.query("FilterBar")  # by name: its module may not be imported yet
        if not bars:
            return None
        from bottui.tui.widgets.entry_table import FilterBar

        return bars.first(FilterBar)

    @property
    def filter_text(self) -> str:
        """The text the table is filtered by ("" when none)."""
        return self.filter_table().row_filter.text

    @on(events.Mount)
    def _prepare_filter_bar(self) -> None:
        # Mounted hidden once the first frames are out (~10 ms they need not
        # wait for), so `/` shows and focuses it at once: keys typed right
        # after `/` (a burst over SSH) must reach the field, not the table.
        self.services.after_start(self._mount_filter_bar)

    async def _mount_filter_bar(self) -> FilterBar | None:
        if not self.is_attached:
            return None  # closed before start-up was over
        bar = self._filter_bar()
        if bar is None:
            from bottui.tui.widgets.entry_table import FilterBar

            bar = FilterBar()
            bar.display = False
            await self.mount(bar, before=self.filter_table())
        return bar

    async def action_filter(self) -> None:
        """Open the filter line (or go back to it) above the table."""
        table = self.filter_table()
        bar = self._filter_bar() or await self._mount_filter_bar()
        if bar is None:
            return
        if self.focused is bar.input:  # a "/" typed in the filter itself
            bar.input.insert_text_at_cursor("/")
            return
        bar.display = True
        bar.show_count(len(table.entries), table.total)
        # At once, not on the next idle (Widget.focus): the next key goes to the field.
        self.set_focus(bar.input)

    def leave_profile(self) -> list[str]:
        """A kept filter was typed for the old profile's rows: it goes, said."""
        dropped = super().leave_profile()
        text = self.filter_text
        if self.clear_filter() and text:
            dropped.append(f"the {self.SCREEN_TITLE} filter {text!r} was cleared")
        return dropped

    def action_clear_filter(self) -> None:
        """Clear the filter: every row again."""
        self.clear_filter()

    def clear_filter(self) -> bool:
        """Clear the filter if one is open or kept; False when there was none."""
        bar = self._filter_bar()
        if bar is None or not bar.display:
            return False
        table = self.filter_table()
        bar.input.value = ""
        bar.display = False
        table.set_filter("")
        focus_shown(table)  # never the hidden field, nor a table hidden while empty
        return True

    @on(Input.Changed, "#table-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.filter_table().set_filter(event.value)

    @on(Input.Submitted, "#table-filter")
    def _filter_kept(self) -> None:
        bar = self._filter_bar()
        if bar is not None and not bar.input.value.strip():
            self.clear_filter()
            return
        focus_shown(self.filter_table())

    def on_filter_input_cleared(self, _event: FilterInput.Cleared) -> None:
        """Esc in the filter's field: clear it (by handler name, as FilterInput is lazy)."""
        self.clear_filter()

    @on(EntryTable.Filtered)
    def _filtered(self, event: EntryTable.Filtered) -> None:
        bar = self._filter_bar()
        if bar is not None:
            if self.filter_table().row_filter.active:
                bar.display = True  # a narrowed table always says so ("0 of 1 shown")
            bar.show_count(event.shown, event.total)
