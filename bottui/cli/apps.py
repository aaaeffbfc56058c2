"""The long-running faces: ``bottui`` (the TUI), ``bottui demo`` and ``bottui sandbox``.

The one module of the CLI that imports the TUI, the demo and the sandbox
(the layer test allows it here only), each lazily, so a command never loads
them. :func:`cmd_tui` is the fast path of a bare ``bottui``: nothing here
imports argparse, and the collector stays paused until the first frame.
:func:`known_bindings` hands the TUI's key bindings to ``bottui config check``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError

if TYPE_CHECKING:
    from bottui.ops.config_checks import KnownBinding


def cmd_sandbox(args: Args, out: Output) -> int:
    """``bottui sandbox``: serve the emulator until Ctrl-C."""
    from bottui.sandbox.process import BindError
    from bottui.sandbox.server import serve

    try:
        serve(args.host, args.port, latency=args.latency)
    except BindError as exc:
        raise UsageError("Cannot serve the sandbox", str(exc)) from None
    return EXIT_OK


def cmd_demo(args: Args, out: Output) -> int:
    """``bottui demo [--team]``: the app against the embedded sandbox, isolated."""
    from bottui.tui import perf as gc_pause

    with gc_pause.paused():  # the app resumes it after its first frame
        from bottui.demo import run_demo

        # The first run's "Start the demo" comes with the TUI's arguments: no --team.
        if getattr(args, "team", False):
            return run_demo(team=True)
        return run_demo()


def cmd_tui(args: Args, out: Output) -> int:
    """No command: the TUI on the saved profile."""
    from bottui.tui import perf as gc_pause

    with gc_pause.paused():  # the app resumes it after its first frame
        from bottui.tui.messages import START_DEMO
        from bottui.tui.run import run_app

        code: int = run_app(args)
    if code == START_DEMO:  # chosen on the first-run welcome
        return cmd_demo(args, out)
    return code


def known_bindings() -> list[KnownBinding]:
    """The TUI's key bindings, for ``bottui config check`` (read from its screens)."""
    from bottui.tui.key_registry import known_bindings as of_the_tui

    return of_the_tui()
