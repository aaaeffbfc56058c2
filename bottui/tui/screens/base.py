"""What every main screen shares: the context bar, the key bar, and worker plumbing.

A screen reaches the app only through :attr:`BottuiScreen.services` (a
:class:`~bottui.tui.services.TuiServices`), never the app class. It starts
service calls with :meth:`BottuiScreen.call`; the worker awaits
:mod:`bottui.ops` and posts a message; a failure reaches the one error
renderer (:meth:`TuiServices.report`). Changes never run in an
``exclusive`` group: a later action must not cancel a change in flight.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from bottui.tui.messages import InventoryChanged, ProjectChosen
from bottui.tui.services import TuiServices, find_services, services_of
from bottui.tui.ui_rules import release_hidden_focus
from bottui.tui.widgets.screen_bars import ContextBar, KeyBar

T = TypeVar("T")

#: Under the context bar on every screen while the profile is read-only.
READ_ONLY_BANNER = "READ-ONLY profile: every change is refused; nothing is sent"


class BottuiScreen(Screen[None]):
    """Base of the five main screens."""

    #: Title shown in the help screen and the command palette.
    SCREEN_TITLE: ClassVar[str] = ""
    BINDINGS: ClassVar[list[BindingType]] = []

    @property
    def services(self) -> TuiServices:
        """What this screen uses of the app: session, current project, reports..."""
        return services_of(self)

    def compose(self) -> ComposeResult:
        yield ContextBar()
        banner = Static(Content(READ_ONLY_BANNER), id="readonly-banner", classes="banner-readonly")
        banner.display = self._read_only()
        yield banner
        yield from self.compose_body()
        yield KeyBar()

    def _read_only(self) -> bool:
        services = find_services(self)
        return services is not None and services.read_only

    def compose_body(self) -> ComposeResult:
        """The screen's own widgets, between the context bar and the key bar."""
        yield from ()

    def call(
        self,
        work: Callable[[], Awaitable[Any]],
        *,
        label: str,
        done: Callable[[Any], Message] | None = None,
        group: str = "default",
    ) -> Worker[Any]:
        """Run ``work`` in a worker; post ``done(result)``; errors go to the app.

        Args:
            work: Calls :mod:`bottui.ops` and returns its result.
            label: What the working indicator says meanwhile.
            done: Builds the message posted on success.
            group: Worker group (never exclusive: changes are not cancelled).
        """
        services = self.services

        async def run() -> Any:
            try:
                with services.working(label):
                    result = await work()
            finally:
                services.share_soon()  # what it journaled goes to the team store now
            services.flush_warnings()
            if done is not None:
                self.post_message(done(result))
            return result

        return self.run_worker(run(), name=label, group=group, exit_on_error=False, exclusive=False)

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
        app like :meth:`call`'s; nothing shows "working" (reads are quick,
        and a read waiting on a lock must not look like a change under way).
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

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place a failed worker turns into a toast or a modal."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.services.flush_warnings()
            # The worker's label names the operation when its error carries none.
            self.services.report(event.worker.error, operation=event.worker.name)

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
