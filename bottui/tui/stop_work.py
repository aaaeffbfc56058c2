"""Ask before leaving work under way: quitting, or switching profile, during a bulk run
or while a change is in flight.

A timed revert in flight (#15) is not asked about: it is short, and waited for.

:func:`confirm_stop_work` is the one check (the app offers it as
:meth:`~bottui.tui.app.BottuiApp.confirm_stop_work`): with nothing under
way it says yes at once; during a bulk run it asks (Cancel focused) and, if
confirmed, stops the run and waits until the requests in flight have
answered and their outcomes are journaled, so no entry whose request was
answered is left "started". A single change in flight (a switch, a
revocation, thresholds, an undo: sent, not yet answered) is the same case on
a small scale: it asks, then waits for the answer to be journaled, since
leaving now would leave that change's outcome unknown. It waits for a
dialog, so it runs in a worker.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.content import Content

from bottui.tui.widgets.bulk_words import plural

if TYPE_CHECKING:
    from bottui.tui.services import TuiServices


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
    from bottui.tui.screens.change_form import ConfirmDialog

    title, body, label = (
        stop_words(services, doing) if runs.active else change_words(services, doing)
    )
    agreed = await services.host.push_screen(
        ConfirmDialog(title, body, label, danger=runs.active), wait_for_dismiss=True
    )
    if not agreed:
        return False
    if runs.active:
        services.host.notify(
            "Stopping the bulk revocation: the requests in flight finish first.", markup=False
        )
        await runs.stop_and_wait()
    await _timed_reverts_end(services, doing)
    if services.session.changes_in_flight:
        services.host.notify(
            "Waiting for the change under way to be answered and journaled.", markup=False
        )
    while services.session.changes_in_flight:
        # The change's own worker journals its outcome; nothing to wake us but polling.
        await asyncio.sleep(0.05)
    return True


async def _timed_reverts_end(services: TuiServices, doing: str) -> None:
    """A timed revert in flight (#15) is answered and journaled before leaving; not asked."""
    if services.timed_busy:
        services.host.notify(
            f"A timed revert is in flight: it is recorded first, then {doing}.", markup=False
        )
        if doing == "quit":
            await services.stop_timed()
        elif services.timed_runner is not None:  # a switch stops and restarts it itself
            await services.timed_runner.wait_idle()


__all__ = ["change_words", "confirm_stop_work", "stop_words", "work_under_way"]
