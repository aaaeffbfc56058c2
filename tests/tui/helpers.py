"""Small helpers every TUI test file uses."""

from __future__ import annotations

import contextlib
import time
from asyncio import Future
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Button, Static
from textual.worker import Worker

if TYPE_CHECKING:
    from bottui.sandbox.server import SandboxServer


async def settle(pilot: Pilot[Any]) -> None:
    """Let every worker finish and the screen catch up.

    But for a worker waiting for the operator's answer to a dialog (bottui's
    ``TuiServices.ask``): that one waits for the test, which answers the dialog.
    Once the answer is given, the worker is waited for again. Workers started
    meanwhile are waited for too; a worker's failure is raised, as
    ``wait_for_complete`` raises it.
    """
    app = pilot.app
    asking: dict[Worker[Any], Future[Any]] = getattr(getattr(app, "services", None), "asking", {})

    def busy(worker: Worker[Any]) -> bool:
        answer = asking.get(worker)
        return not worker.is_finished and (answer is None or answer.done())

    while any(busy(worker) for worker in app.workers):
        await pilot.pause()
    if finished := [worker for worker in app.workers if worker.is_finished]:
        await app.workers.wait_for_complete(finished)
    await pilot.pause()
    await pilot.pause()


async def until(
    check: Callable[[], bool],
    pilot: Pilot[Any],
    timeout: float = 60.0,
    state: Callable[[], object] | None = None,
) -> None:
    """Let the app run until ``check()`` holds (``timeout``: a hang guard, not a bound).

    ``state``: what the failure message shows of the app when the guard fires.
    """
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out: {state() if state else ''}"
        await pilot.pause(0.02)


async def press_closing(pilot: Pilot[Any], selector: str = "#confirm") -> None:
    """Press the dialog's button ``selector`` and wait until the dialog has closed, then settle.

    ``Button.press()`` only posts the press: until the dialog handles it, the
    worker waiting for the answer is not busy, so a bare :func:`settle` could
    return before anything happened (on a busy machine it did).
    """
    dialog = pilot.app.screen
    dialog.query_one(selector, Button).press()
    await until(lambda: pilot.app.screen is not dialog, pilot)
    await settle(pilot)


async def keys_closing(pilot: Pilot[Any], *keys: str) -> None:
    """Press ``keys`` on the dialog shown (Tab, Enter: confirm), wait until it has closed,
    then settle (see :func:`press_closing`: a bare settle could come before the press)."""
    dialog = pilot.app.screen
    await pilot.press(*keys)
    await until(lambda: pilot.app.screen is not dialog, pilot)
    await settle(pilot)


async def click_again(pilot: Pilot[Any], selector: str) -> None:
    """Click a button pressed a moment ago, once its press has finished showing.

    Textual ignores a click on a button still showing its last press (the
    ``-active`` class, 0.2 s): a test that clicks it again that soon loses
    the click on some runs, which a person could not do. CI lost the Run
    button's second click in the playbook failure test that way.
    """
    button = pilot.app.screen.query_one(selector, Button)
    await until(lambda: not button.has_class("-active"), pilot)
    assert await pilot.click(button)


async def settle_failed(pilot: Pilot[Any]) -> None:
    """:func:`settle` after an action the test made fail: its worker ends in error.

    Until Textual drops a finished worker (a task callback, a moment later),
    waiting on it raises the error it ended with; whether that moment has
    come depends on the machine's speed. The app has reported the error
    (toast, panel, error log): that is what the test looks at.
    """
    from textual.worker import WorkerFailed

    with contextlib.suppress(WorkerFailed):
        await pilot.app.workers.wait_for_complete()
    await settle(pilot)


def plain(widget: Static | Button) -> str:
    """The plain text a Static shows, or a Button's label."""
    content = widget.label if isinstance(widget, Button) else widget.content
    return content.plain if isinstance(content, Content) else str(content)


def sent(sandbox: SandboxServer) -> list[Any]:
    """What the sandbox was sent, in order: (method, the id in the path, the JSON body)."""
    return [(r.method, r.segments[-2], r.json) for r in sandbox.state.recorder.log]


async def open_then(pilot: Pilot[Any], key: str, *keys: str) -> None:
    """Press ``key``, which opens a screen, then ``keys`` on that screen once it is up.

    An action that plans first (in a worker) pushes its dialog a moment later;
    keys pressed meanwhile reach the screen below, and Tab, Enter there are not
    the dialog's. A person sees the dialog, then types: so does this. (Pressed
    in one ``press()``, a busy machine let Tab and Enter in before the dialog:
    nothing was sent, and the test that expected a send failed.)
    """
    app = pilot.app
    before = app.screen
    await pilot.press(key)
    await until(lambda: app.screen is not before, pilot)
    await pilot.press(*keys)
