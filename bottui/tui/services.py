"""What screens and dialogs use of the running app: one typed service object.

The app creates one :class:`TuiServices` and hands it to every screen and
dialog (:func:`services_of`), so none of them imports or reaches into the
app class: the session, the current project, reporting an error (through
the one renderer, :mod:`bottui.tui.error_view`), confirming a change
(:meth:`TuiServices.plan_and_confirm`: plan once in a worker, confirm that
plan; :meth:`TuiServices.confirm`), the working indicator, the inventory-changed
notification and the session's warnings all live here. The app keeps only
what needs the screens themselves (delivering a message to every screen,
redrawing every context bar) and passes those two in as callables.

Screens reach the stores through ``services.session``'s async facades
(``journal_store``, ``inventory_store``, ``config_store``), awaited in
workers through :mod:`bottui.ops` (changes, inventory and profile edits):
never a store call on the event loop. Project names, which every context bar shows,
are read into a cache by one worker (:meth:`TuiServices.inventory_changed`)
so :meth:`TuiServices.project_name` needs no I/O.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from textual.content import Content
from textual.message import Message

from bottui.api.errors import BottuiError
from bottui.ops.session import Session, Settings
from bottui.plaintext import clean
from bottui.tui.error_view import EXPECTED_ERRORS, error_dialog, error_toast
from bottui.tui.messages import InventoryChanged, ProjectChosen
from bottui.tui.services_team import TeamServices

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.message_pump import MessagePump

    from bottui.api.requests import PreparedRequest
    from bottui.ops import confirmation as rule
    from bottui.ops.plan import PlannedChange


@dataclass(frozen=True)
class Confirmation:
    """What confirmation a change needs before it is sent.

    ``none``: sent at once; ``click``: a Confirm button; ``typed``: the
    project id typed (a protected profile); ``refused``: never sent,
    ``reason`` says why (a read-only profile).
    """

    kind: Literal["none", "click", "typed", "refused"]
    reason: str = ""


#: The refusal of a read-only profile.
READ_ONLY_REFUSAL = Confirmation("refused", "this profile refuses every change; nothing was sent")


def plan_confirmation(needed: rule.Confirmation) -> Confirmation:
    """The dialog a plan's confirmation (:mod:`bottui.ops.confirmation`) asks for.

    The read-only refusal keeps the TUI's own words (:data:`READ_ONLY_REFUSAL`).
    """
    kind = needed.kind.value
    if kind == "refused":
        if needed.title == "Read-only":
            return READ_ONLY_REFUSAL
        return Confirmation("refused", needed.reason or "")
    if kind == "typed":
        return Confirmation("typed")
    return Confirmation("none" if kind == "none" else "click")


def profile_confirmation(settings: Settings) -> Confirmation:
    """The confirmation the profile's rules ask of any change."""
    if settings.read_only:
        return READ_ONLY_REFUSAL
    return Confirmation("typed" if settings.protected else "click")


@dataclass(frozen=True)
class ChangePrompt:
    """What a change's confirmation shows, what it sends, and what it needs."""

    #: Dialog title, body and the confirm button's label.
    title: str
    body: Content
    confirm_label: str
    #: What a protected profile wants typed.
    project_id: str
    #: The request(s) a dry run shows (:meth:`ChangePrompt.of`: the plan's own);
    #: a BottuiError raised here is reported, nothing sent.
    plan: Callable[[], Sequence[PreparedRequest]]
    #: None: the profile decides (:func:`profile_confirmation`).
    needs: Confirmation | None = None
    #: Teammates' recent changes of the same target (or why they could not be
    #: checked), cleaned lines shown inside the confirmation; empty: none.
    recent: tuple[str, ...] = ()
    #: A long list under the body, scrolled (the limiters of a change of many).
    listing: Content | None = None

    @classmethod
    def of(
        cls,
        plan: PlannedChange[Any],
        body: Content,
        *,
        title: str | None = None,
        confirm_label: str | None = None,
    ) -> ChangePrompt:
        """The prompt of a planned change: its requests, its confirmation, its texts.

        ``body`` is the screen's own rendering of the plan's data; ``title`` and
        ``confirm_label`` default to the plan's.
        """
        requests = list(plan.requests)
        return cls(
            title=plan.title if title is None else title,
            body=body,
            confirm_label=plan.confirm_label if confirm_label is None else confirm_label,
            project_id=plan.confirmation.typed or plan.project,
            plan=lambda: requests,
            needs=plan_confirmation(plan.confirmation),
        )


class TuiServices(TeamServices):
    """The app's services, typed, for screens and dialogs.

    Args:
        host: The running app (toasts and dialogs are shown on it).
        session: Settings, stores and client for this run.
        current: The project to start on, ``(account, project)``.
        demo: True under ``bottui demo``.
        broadcast: Posts a fresh message to each main screen.
        show_work: Redraws the working indicator of every context bar.
    """

    def __init__(
        self,
        host: App[Any],
        session: Session,
        *,
        current: tuple[str, str] | None,
        demo: bool,
        broadcast: Callable[[Callable[[], Message]], None],
        show_work: Callable[[], None],
    ) -> None:
        self._host = host
        self.session = session
        self._current = current
        self.demo = demo
        #: Dry run: changes show their request(s) and curl instead of sending.
        self.dry_run = False
        self._broadcast = broadcast
        self._show_work = show_work
        self._work: list[str] = []
        #: The last error reported (shown whole on ``e``).
        self.last_error: BaseException | None = None
        #: Names the inventory knows for projects (filled by :meth:`load_names`).
        self._names: dict[tuple[str, str], str] = {}
        #: The inventory's marker when the names were read (see ``load_names``).
        self._names_version: Hashable | None = None
        self._init_team()

    @property
    def host(self) -> App[Any]:
        """The running app (toasts, workers)."""
        return self._host

    def redraw_bars(self) -> None:
        """Redraw every context bar's flags (working indicator, team store state)."""
        self._show_work()

    # -- the current project -------------------------------------------------------

    @property
    def current(self) -> tuple[str, str] | None:
        """The current project, ``(account, project)``, or None."""
        return self._current

    @property
    def read_only(self) -> bool:
        """True when the profile refuses every change."""
        return self.session.settings.read_only

    def choose_project(self, account: str | None, project: str | None) -> None:
        """Make a project current for every screen."""
        self._current = (account, project) if account and project else None
        self._broadcast(lambda: ProjectChosen(account, project))

    def project_name(self, account: str, project: str) -> str | None:
        """The display name the inventory knows for a project (from the cache: no I/O)."""
        return self._names.get((account, project))

    async def load_names(self) -> None:
        """Read every project's name from the inventory into the cache.

        A damaged or locked inventory leaves the cache as it was: the
        Projects screen says what is wrong. Not read again while the
        inventory's marker is the one of the last read (thousands of projects).
        """
        from bottui.ops.inventory_reads import inventory_version, read_all_projects

        try:
            version = await inventory_version(self.session)
            if version is not None and version == self._names_version:
                return
            entries = await read_all_projects(self.session)
        except EXPECTED_ERRORS:
            return
        self._names = {(e.account, e.project): e.name for e in entries if e.name}
        self._names_version = version

    def inventory_changed(self) -> None:
        """Read the project names again, then tell every screen that the inventory changed."""

        async def reload() -> None:
            try:
                await self.load_names()
            finally:
                self._broadcast(InventoryChanged)

        self._host.run_worker(
            reload(), name="project names", group="project-names", exit_on_error=False
        )

    # -- working indicator -----------------------------------------------------------

    @contextmanager
    def working(self, label: str) -> Iterator[None]:
        """The indicator says ``label`` while the block runs."""
        self.begin_work(label)
        try:
            yield
        finally:
            self.end_work(label)

    def begin_work(self, label: str) -> None:
        """A call started: show it in every context bar."""
        self._work.append(label)
        self._show_work()

    def end_work(self, label: str) -> None:
        """A call ended."""
        if label in self._work:
            self._work.remove(label)
        self._show_work()

    @property
    def work_text(self) -> str:
        """What the working indicator says: the latest call under way, "" when none."""
        if not self._work:
            return ""
        more = len(self._work) - 1
        return self._work[-1] + (f" (+{more})" if more else "")

    # -- errors and warnings ---------------------------------------------------------

    def report(self, error: BaseException) -> None:
        """The one place a failure becomes a toast; its details on ``e``."""
        self.last_error = error
        toast = error_toast(error)
        self._host.notify(
            toast.message, title=toast.title, severity="error", timeout=8, markup=False
        )

    def show_last_error(self) -> None:
        """Open the whole last error in a modal."""
        if self.last_error is None:
            self._host.notify("No error so far.", markup=False)
            return
        self._host.push_screen(error_dialog(self.last_error))

    def flush_warnings(self) -> None:
        """Toast the session's warnings (journal or inventory not written, ...)."""
        for warning in self.session.take_warnings():
            self._host.notify(
                clean(warning, keep_newlines=True),
                title="Warning",
                severity="warning",
                markup=False,
            )

    # -- confirmation, dry run ---------------------------------------------------------

    def confirm(self, prompt: ChangePrompt, then: Callable[[str | None], None]) -> None:
        """Ask before a change; under dry run show the request(s) instead.

        ``prompt.plan`` runs first (its errors are reported). A refused
        change is reported and never sent; ``then`` runs only after the
        confirmation the change needs, with the reason typed in it (None:
        none). Under ``require_reason`` the dialog refuses to confirm
        without one; :func:`bottui.ops.mutations.apply` checks it again.
        """
        from bottui.ops import reasons
        from bottui.tui.screens.dialogs import (
            ConfirmDialog,
            ReasonAsked,
            RequestsDialog,
            TypedConfirmDialog,
        )

        try:
            requests = prompt.plan()
        except BottuiError as exc:
            self.report(exc)
            return
        settings = self.session.settings
        if self.dry_run:
            lines = dry_run_lines(requests)
            refused = reasons.refusal_text(settings, None)
            if refused is not None:
                lines += [f"Without a reason this would be refused: {refused}"]
            self._host.push_screen(RequestsDialog(lines))
            return
        needs = prompt.needs or profile_confirmation(self.session.settings)
        if needs.kind == "refused":
            self.report(BottuiError("Read-only profile", needs.reason))
            return
        if needs.kind == "none":
            then(None)
            return
        asked = ReasonAsked(required=settings.require_reason)

        def decided(ok: bool | None) -> None:
            if ok:
                then(dialog.reason)

        dialog: ConfirmDialog | TypedConfirmDialog
        warning = Content("\n".join(prompt.recent)) if prompt.recent else None
        if needs.kind == "typed":
            dialog = TypedConfirmDialog(
                prompt.title,
                prompt.body,
                prompt.project_id,
                prompt.confirm_label,
                reason=asked,
                warning=warning,
                listing=prompt.listing,
            )
        else:
            dialog = ConfirmDialog(
                prompt.title,
                prompt.body,
                prompt.confirm_label,
                reason=asked,
                warning=warning,
                listing=prompt.listing,
            )
        self._host.push_screen(dialog, decided)

    def plan_and_confirm(
        self,
        node: DOMNode,
        make: Callable[[], Awaitable[PlannedChange[Any]]],
        prompt_of: Callable[[PlannedChange[Any]], ChangePrompt],
        then: Callable[[PlannedChange[Any]], None],
    ) -> None:
        """Plan a change once in a worker of ``node``, then :meth:`confirm` it.

        ``make`` awaits a planner of :mod:`bottui.ops.plan` (it may read the
        stores: never on the event loop's own turn); its errors are reported.
        ``then`` gets the very plan that was confirmed, to hand to
        :func:`bottui.ops.mutations.apply`.
        """

        async def plan_it() -> None:
            from bottui.ops import collisions

            try:
                plan = await make()
                # Before the dialog: who else changed this lately (never raises
                # for the team store; it says when it could not check).
                recent = await collisions.check(self.session, plan)
            except Exception as exc:  # reported like any failure; nothing is sent
                self.flush_warnings()
                self.report(exc)
                return
            self.flush_warnings()
            prompt = prompt_of(plan)
            if recent is not None and recent.warns:
                prompt = replace(prompt, recent=tuple(recent.lines()))
            self.confirm(prompt, lambda reason: then(plan.with_reason(reason)))

        node.run_worker(
            plan_it(), name="Planning", group="plan", exit_on_error=False, exclusive=False
        )

    def toggle_dry_run(self) -> None:
        """Dry run on/off: changes show their request and curl instead of sending."""
        self.dry_run = not self.dry_run
        state = "ON: changes are shown, not sent" if self.dry_run else "OFF"
        self._host.notify(f"Dry run {state}", markup=False)


def find_services(node: MessagePump) -> TuiServices | None:
    """The services of the app ``node`` runs in; None in an app that has none (a test's)."""
    services = getattr(node.app, "services", None)
    return services if isinstance(services, TuiServices) else None


def services_of(node: MessagePump) -> TuiServices:
    """The services of the app ``node`` runs in (an assertion, not a lookup that may fail)."""
    services = find_services(node)
    assert services is not None, "not running in bottui's app"
    return services


def dry_run_lines(requests: Sequence[PreparedRequest]) -> list[str]:
    """The lines a dry run shows: method, URL, headers, body, curl."""
    from bottui.api.curl import request_lines

    lines: list[str] = []
    for request in requests:
        lines += [*request_lines(request), ""]
    return lines
