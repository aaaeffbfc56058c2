"""Ask before leaving work under way: quitting, or switching profile, during a bulk run.

A timed revert in flight (#15) is not asked about: it is short, and waited for.

:func:`confirm_stop_work` is the one check (the app offers it as
:meth:`~bottui.tui.app.BottuiApp.confirm_stop_work`): with nothing under
way it says yes at once; during a bulk run it asks (Cancel focused) and, if
confirmed, stops the run and waits until the requests in flight have
answered and their outcomes are journaled, so no entry whose request was
answered is left "started". It waits for a dialog, so it runs in a worker.
"""

from __future__ import annotations

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


async def confirm_stop_work(services: TuiServices, doing: str = "quit") -> bool:
    """True when nothing is under way, or once the operator agreed and the run stopped.

    Call it from a worker (it waits for the operator's answer, then for the
    requests in flight).
    """
    runs = services.bulk
    if not runs.active:
        await _timed_reverts_end(services, doing)
        return True
    from bottui.tui.screens.dialogs import ConfirmDialog

    title, body, label = stop_words(services, doing)
    agreed = await services.host.push_screen(
        ConfirmDialog(title, body, label, danger=True), wait_for_dismiss=True
    )
    if not agreed:
        return False
    if runs.active:
        services.host.notify(
            "Stopping the bulk revocation: the requests in flight finish first.", markup=False
        )
        await runs.stop_and_wait()
    await _timed_reverts_end(services, doing)
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


__all__ = ["confirm_stop_work", "stop_words"]
