"""The long-running faces: ``bottui`` (the TUI), ``bottui demo`` and ``bottui sandbox``.

The one module of the CLI that imports the TUI, the demo and the sandbox
(the layer test allows it here only), each lazily, so a command never loads
them. :func:`cmd_tui` is the fast path of a bare ``bottui``: nothing here
imports argparse (the parsers of ``sandbox`` and ``demo`` import the parser
when they are built), and the collector stays paused until the first frame.
:func:`known_bindings` hands the TUI's key bindings to ``bottui config check``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from bottui.api.errors import EXIT_OK
from bottui.cli.output import UsageError

if TYPE_CHECKING:
    from bottui.cli.output import Output
    from bottui.cli.parser import Args
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
    from bottui.tui import perf

    with perf.paused():  # the app resumes it after its first frame
        from bottui.demo import run_demo

        # The first run's "Start the demo" comes with the TUI's arguments: no --team.
        if getattr(args, "team", False):
            return run_demo(team=True)
        return run_demo()


def cmd_tui(args: Args, out: Output) -> int:
    """No command: the TUI on the saved profile."""
    from bottui.tui import perf

    with perf.paused():  # the app resumes it after its first frame
        from bottui.tui.launch import run_app
        from bottui.tui.services import START_DEMO

        code: int = run_app(args)
    if code == START_DEMO:  # chosen on the first-run welcome
        return cmd_demo(args, out)
    return code


def known_bindings() -> list[KnownBinding]:
    """The TUI's key bindings, for ``bottui config check`` (read from its screens)."""
    from bottui.tui import key_registry

    return key_registry.known_bindings()


def _add_sandbox(commands: Any) -> None:
    from bottui.cli.parser import command

    sandbox = command(
        commands,
        "sandbox",
        examples=["bottui sandbox", "bottui sandbox --port 9000 --latency 0.2"],
        exits=[0, (2, "refused: the address is in use or not allowed"), 130],
        # Faults are injected over HTTP while it serves (every name of
        # bottui.sandbox.faults.WIRE_NAMES; a test checks it).
        notes="sandbox",
    )
    sandbox.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default %(default)s)"
    )
    sandbox.add_argument(
        "--port", type=int, default=8765, help="port to listen on (default %(default)s)"
    )
    sandbox.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="added to every request (default %(default)s)",
    )


def _add_demo(commands: Any) -> None:
    from bottui.cli.parser import command

    demo = command(
        commands,
        "demo",
        examples=["bottui demo", "bottui demo --team"],
        exits=[0, (2, "refused: --team without its extras"), 130],
    )
    demo.add_argument(
        "--team",
        action="store_true",
        help="team mode: a throwaway PostgreSQL and a scripted teammate whose changes "
        "arrive live (pip install 'bottui[demo]')",
    )


#: Each command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"sandbox": _add_sandbox, "demo": _add_demo}
