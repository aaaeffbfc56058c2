"""What the operator does with a timed change in the TUI: revert now, extend, keep (#15).

Each asks first and then runs in an app worker through :mod:`bottui.ops.timed`
(the stores' async facades; never on the event loop's turn):

* :func:`ask_revert`: "revert now", and the question the executor asks of a
  revert past the profile's lateness limit. The same rules as any change: a
  read-only profile refuses before asking, dry run sends nothing, a protected
  profile wants the project id typed unless the timed change was confirmed
  when it was made (its revert was confirmed then).
* :func:`ask_extend`: how much later (:class:`~bottui.tui.screens.change_form.ExtendDialog`).
* :func:`ask_cancel`: keep the change; its revert will not happen.

Each result is a toast (failures go to the error log too), and the header's
countdown and every screen read again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from textual.content import Content

from bottui.plaintext import clean
from bottui.tui.widgets.safe import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.ops.timed import TimedChange
    from bottui.tui.services import TuiServices

#: Called once an action ended (the Timed screen reads its rows again).
Done = Callable[[], None] | None


def _describe(timed: TimedChange) -> Content:
    return join(
        safe(timed.what),
        " of project ",
        safe_id(timed.project),
        ", account ",
        safe_id(timed.account),
        "\nReverts to: ",
        Content.styled(clean(timed.revert_to), "bold"),
    )


def _run(services: TuiServices, label: str, work: Awaitable[Any], done: Done) -> None:
    """Run ``work`` in an app worker; report its failure; then refresh what shows timed changes."""

    async def run() -> None:
        try:
            with services.working(label):
                await work
        except Exception as exc:  # reported like any failure (the error log keeps it)
            services.report(exc, operation=label)
        finally:
            services.timed_changed()
            if done is not None:
                done()

    services.host.run_worker(run(), name=label, group="timed", exit_on_error=False)


def ask_revert(
    services: TuiServices, timed: TimedChange, *, late: timedelta | None = None, done: Done = None
) -> None:
    """Revert ``timed`` now, once confirmed (``late``: the executor asks past the limit)."""
    from bottui.ops.durations import duration_text
    from bottui.tui.change_prompt import ChangePrompt, Confirmation, profile_confirmation

    if services.refuse_if_read_only(f"Revert timed change {timed.id} now"):
        return
    if services.dry_run:
        services.host.notify(
            clean(
                f"Dry run: nothing sent. Timed change {timed.id} would revert to {timed.revert_to}."
            ),
            title="Dry run",
            markup=False,
        )
        return
    settings = services.session.settings
    needs = Confirmation("click") if timed.confirmed else profile_confirmation(settings)
    if late is not None:
        title = f"Revert timed change {timed.id}, late by {duration_text(late)}?"
        intro = Content(
            "Its revert came due while no executor ran, and it is past the profile's "
            "lateness limit: it is not sent without you. Keep the change instead: "
            "k on the Timed screen (T).\n\n"
        )
    else:
        title = f"Revert timed change {timed.id} now?"
        intro = Content("Sent now instead of at its due time.\n\n")
    prompt = ChangePrompt(
        title=title,
        body=join(intro, _describe(timed)),
        confirm_label="Revert now",
        project_id=timed.project,
        plan=lambda: [],
        needs=needs,
        decision=f"revert timed change {timed.id}: {timed.what} back to {timed.revert_to}",
    )

    def confirmed(_reason: str | None) -> None:
        _run(services, f"Reverting timed change {timed.id}", _revert(services, timed), done)

    services.confirm(prompt, confirmed)


async def _revert(services: TuiServices, timed: TimedChange) -> None:
    from bottui.ops import timed as timed_ops

    session = services.session
    report = await timed_ops.revert_now(
        session, timed.key, executor=timed_ops.executor_name("tui"), confirmed=True
    )
    runner = services.timed_runner
    if runner is not None:
        runner.tell([report])
    else:
        services.host.notify(clean(report.line), title="Timed change", markup=False)


def ask_extend(
    services: TuiServices, timed: TimedChange, due_words: str, *, done: Done = None
) -> None:
    """Ask how much later ``timed`` reverts, then journal the extension."""
    from bottui.tui.screens.change_form import ExtendDialog

    if services.refuse_if_read_only(f"Extend timed change {timed.id}"):
        return

    def chosen(after: timedelta | None) -> None:
        if after is not None:
            _run(
                services,
                f"Extending timed change {timed.id}",
                _extend(services, timed, after),
                done,
            )

    services.host.push_screen(ExtendDialog(timed, due_words), chosen)


async def _extend(services: TuiServices, timed: TimedChange, after: timedelta) -> None:
    from bottui.ops import timed as timed_ops
    from bottui.ops.timed.schedule import now_of

    session = services.session
    moved = await timed_ops.extend(session, timed.key, after)
    services.host.notify(
        clean(
            f"Timed change {moved.id} now reverts {moved.when_text(now_of(session))} "
            f"({moved.due_at.strftime('%H:%M')} UTC)."
        ),
        title="Timed change extended",
        markup=False,
    )


def ask_cancel(services: TuiServices, timed: TimedChange, *, done: Done = None) -> None:
    """Keep the change: after a confirmation, its revert is cancelled (a journal event)."""
    from bottui.tui.screens.change_form import ConfirmDialog

    if services.refuse_if_read_only(f"Keep timed change {timed.id}"):
        return
    body = join("The change stays as it is; its revert will not happen.\n\n", _describe(timed))

    def answered(ok: bool | None) -> None:
        if ok:
            _run(services, f"Cancelling timed change {timed.id}", _cancel(services, timed), done)

    services.host.push_screen(
        ConfirmDialog(f"Keep the change of timed change {timed.id}?", body, "Keep it"),
        answered,
    )


async def _cancel(services: TuiServices, timed: TimedChange) -> None:
    from bottui.ops import timed as timed_ops

    kept = await timed_ops.cancel(services.session, timed.key)
    services.host.notify(
        clean(f"Timed change {kept.id} cancelled: {kept.what} stays as it is."),
        title="Timed change",
        markup=False,
    )


__all__ = ["ask_cancel", "ask_extend", "ask_revert"]
