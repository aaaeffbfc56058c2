"""Leaving what the app is on: quitting or switching profile, work under way asked about first.

**Leaving work under way** (:func:`confirm_stop_work`; the app offers it as
:meth:`~bottui.tui.app.BottuiApp.confirm_stop_work`). With nothing under way
it says yes at once; during a bulk run it asks (Cancel focused) and, if
confirmed, stops the run and waits until the requests in flight have answered
and their outcomes are journaled, so no entry whose request was answered is
left "started". A single change in flight (a switch, a revocation,
thresholds, an undo: sent, not yet answered) is the same case on a small
scale: it asks, then waits for the answer to be journaled, since leaving now
would leave that change's outcome unknown. It waits for a dialog, so it runs
in a worker. A timed revert in flight (#15) is not asked about: it is short,
and waited for.

**Switching profile** (:func:`switch_profile`, what the profile switcher
``P`` starts, in a worker): no quit, no ``bottui profile use``, no restart.
It asks the app first (:meth:`BottuiApp.confirm_leave_profile`, where work
still running under the old profile can object), reads the profile afresh
and makes it current in ``config.toml``
(:func:`bottui.ops.profiles.switch_profile`), then re-points every service
at it:

- the team store: the push thread, the Journal screen's reader and the live
  feed of the old profile stop; the new profile's (if it has one) start;
- the session: the API client of the new base URL, the inventory of the new
  profile, the team store of the new URL (:meth:`Session.switch_settings`);
  tokens are looked up by base URL, the journal is the one file (each entry
  names its profile);
- the timed changes' executor and countdown (#15): stopped once a revert in
  flight is journaled, started again on the new profile;
- the current project: the new profile's default, else its inventory's first;
- every screen: the context bar and the data it shows are read again; what
  belonged to the old profile's rows (a table filter, marked limiters) is
  dropped and said (:meth:`BottuiScreen.leave_profile`), and so are the old
  profile's pending reverts, which this TUI no longer performs (#27).

A failure before the session was touched leaves the app on the old profile
and is reported like any other. Loaded when first used: its imports (the bulk
run's words, the profiles' config writer) would cost the first frame ~100 ms.
"""

from __future__ import annotations

import asyncio
from datetime import UTC
from typing import TYPE_CHECKING

from textual.content import Content

from bottui.ops import profiles
from bottui.ops.inventory_reads import first_project
from bottui.tui import lazy
from bottui.tui.screens.base import BottuiScreen
from bottui.tui.widgets.bulk_words import plural

if TYPE_CHECKING:
    from bottui.ops.timed.schedule import TimedChange
    from bottui.tui.app import BottuiApp
    from bottui.tui.screens.change_form import ConfirmDialog
    from bottui.tui.services import TuiServices


# -- leaving work under way ------------------------------------------------------------


def stop_words(services: TuiServices, doing: str) -> tuple[str, Content, str]:
    """The dialog's title, body and confirm label for ``doing`` ("quit", "switch profile")."""
    runs = services.bulk
    run = runs.run
    progress = run.progress if run is not None else None
    if progress is None:
        where = "A bulk revocation is starting."
    else:
        total = "?" if progress.total is None else f"{progress.total:,}"
        where = f"A bulk revocation is under way: {progress.done:,} of {total} ids done."
    in_flight = plural(progress.in_flight, "request") if progress is not None else "the requests"
    body = Content(
        f"{where}\n"
        f"To {doing}, it stops first: no new ids are sent; {in_flight} in flight "
        "finish and their outcomes go to the journal (this may take a few seconds).\n"
        "Resume it later: 3, b, the same input, Resume."
    )
    label = "Stop the run and quit" if doing == "quit" else f"Stop the run, {doing}"
    return f"Stop the bulk revocation to {doing}?", body, label


def work_under_way(services: TuiServices) -> bool:
    """A bulk run, or an operator's change sent and not yet answered and journaled.

    A timed revert the TUI's executor is sending is counted apart (its
    origin): it is waited for, not asked about.
    """
    return services.bulk.active or operator_changes(services) > 0


def operator_changes(services: TuiServices) -> int:
    """The operator's changes in flight (not the executor's due reverts)."""
    return services.session.in_flight["operator"]


def change_words(services: TuiServices, doing: str) -> tuple[str, Content, str]:
    """The dialog's title, body and confirm label when a change is in flight."""
    count = operator_changes(services)
    what = services.work_text or "a change"
    changes = "a change" if count == 1 else f"{count} changes"
    body = Content(
        f"Under way: {what}.\n"
        f"{changes.capitalize()} sent and not yet answered. To {doing} now would leave "
        f"{'its' if count == 1 else 'their'} outcome unknown in the journal; bottui waits "
        f"for the answer (at most the request's deadline), journals it, then goes on to {doing}."
    )
    return f"Wait for {changes} under way?", body, f"Wait, then {doing}"


async def confirm_stop_work(services: TuiServices, doing: str = "quit") -> bool:
    """True when nothing is under way, or once the operator agreed and the work stopped.

    Call it from a worker (it waits for the operator's answer, then for the
    requests in flight).
    """
    runs = services.bulk
    if not work_under_way(services):
        await _timed_reverts_end(services, doing)
        return True
    confirm_dialog: type[ConfirmDialog] = lazy.load("ConfirmDialog")
    title, body, label = (
        stop_words(services, doing) if runs.active else change_words(services, doing)
    )
    agreed = await services.ask(confirm_dialog(title, body, label, danger=runs.active))
    if not agreed:
        return False
    if runs.active:
        services.say("Stopping the bulk revocation: the requests in flight finish first.")
        await runs.stop_and_wait()
    await _timed_reverts_end(services, doing)
    if services.session.changes_in_flight:
        services.say("Waiting for the change under way to be answered and journaled.")
    while services.session.changes_in_flight:
        # The change's own worker journals its outcome; nothing to wake us but polling.
        await asyncio.sleep(0.05)
    return True


async def _timed_reverts_end(services: TuiServices, doing: str) -> None:
    """A timed revert in flight (#15) is answered and journaled before leaving; not asked."""
    if services.timed_busy:
        services.say(f"A timed revert is in flight: it is recorded first, then {doing}.")
        if doing == "quit":
            await services.stop_timed()
        elif services.timed_runner is not None:  # a switch stops and restarts it itself
            await services.timed_runner.wait_idle()


# -- switching profile -----------------------------------------------------------------


async def switch_profile(app: BottuiApp, name: str) -> bool:
    """Work under the profile ``name`` from now on; False when nothing changed.

    Switching to the profile in use reads it again (an edit of it applies at once).
    """
    if not await app.confirm_leave_profile():
        return False
    services = app.services
    session = services.session
    with services.working(f"switching to profile {name}"):
        try:
            settings = await profiles.switch_profile(session, name)
        except Exception as exc:  # a config gone bad, the profile removed meanwhile
            services.report(exc)
            return False
        live = app.team_live
        if live is not None:
            live.stop()
        old = session.settings.profile_name
        runner = services.timed_runner
        left = [t for t in (runner.pending if runner is not None else []) if t.profile == old]
        await services.stop_timed()  # the old profile's reverts: none half-done
        await services.stop_team()
        await session.switch_settings(settings)
        # Another profile's rows: a filter or marks of the old ones mean nothing there.
        screens = app.main_screens() if old != name else []
        dropped = [words for screen in screens for words in _left_behind(screen)]
        services.forget_profile_state()
        await services.start_sharing()
        if live is not None:
            live.start()
        if app.team_live is not None:  # started after the first frame: not before either
            services.start_timed()
        await services.load_names()
        if services.current is None:
            first = await first_project(session)
            if first is not None:
                services.choose_project(*first)
    if services.current is None:
        services.choose_project(None, None)  # every screen: no project any more
    else:
        services.choose_project(*services.current)
    services.inventory_changed()
    services.flush_warnings()
    shown = settings.base_url or "no base URL"
    lines = [f"Now on profile {name} ({shown})"]
    lines += [f"{words[:1].upper()}{words[1:]}." for words in dropped]
    if left and old is not None and old != name:
        lines.append(_reverts_left(left, old))
    services.say(
        "\n".join(lines),
        "Profile",
        keep_newlines=True,
        severity="warning" if left and old != name else "information",
        timeout=12 if len(lines) > 1 else 5,
    )
    return True


def _left_behind(screen: object) -> list[str]:
    """What ``screen`` dropped of the profile left (a main screen's filter, marks)."""
    return screen.leave_profile() if isinstance(screen, BottuiScreen) else []


def _reverts_left(left: list[TimedChange], old: str) -> str:
    """The old profile's pending reverts, which this TUI no longer performs."""
    count = len(left)
    first = min(t.due_at for t in left).astimezone(UTC).strftime("%H:%M UTC")
    return (
        f"{count} timed revert{'s' if count != 1 else ''} of profile {old} (the first due "
        f"{first}) {'are' if count != 1 else 'is'} no longer performed by this TUI: switch "
        f"back, or run bottui run-due --profile {old} (a timer or cron job does)"
    )
