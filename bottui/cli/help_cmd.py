"""``bottui help [TOPIC]``: the topics, one topic, or a command's help.

``bottui help`` lists the topics (:mod:`bottui.cli.topics`); ``bottui help
TOPIC`` prints one; ``bottui help COMMAND`` prints what ``bottui COMMAND
--help`` does. Anything else is refused (exit 2) naming the closest topic or
command. With ``--json``: ``{"topics": [{"topic", "summary"}, ...]}``,
``{"topic", "text"}`` or ``{"command", "text"}``.
"""

from __future__ import annotations

from bottui.api.errors import EXIT_OK
from bottui.cli.output import Output
from bottui.cli.parser import Args, UsageError, build_parser


def cmd_help(args: Args, out: Output) -> int:
    """``bottui help [TOPIC]``."""
    from bottui.cli import topics

    wanted: str | None = args.topic
    if wanted is None:
        if out.as_json:
            listed = [{"topic": name, "summary": topics.summary(name)} for name in topics.TOPICS]
            out.document({"topics": listed})
            return EXIT_OK
        out.line("Help topics (`bottui help TOPIC`):")
        out.line("")
        for name in topics.TOPICS:
            out.line(f"  {name:<13}{topics.summary(name)}")
        out.line("")
        out.line(
            "Each command explains itself too: `bottui COMMAND --help` or `bottui help COMMAND`."
        )
        return EXIT_OK
    if wanted in topics.TOPICS:
        _show(out, {"topic": wanted}, topics.text(wanted))
        return EXIT_OK
    from bottui.cli.suggest import closest, shown, subcommands

    commands = subcommands(build_parser())
    if wanted in commands:
        _show(out, {"command": wanted}, commands[wanted].format_help())
        return EXIT_OK
    near = closest(wanted, [*topics.TOPICS, *commands])
    hint = f"; did you mean '{near}'?" if near else ""
    raise UsageError(
        f"no help topic or command '{shown(wanted)}'{hint} (`bottui help` lists the topics)"
    )


def _show(out: Output, what: dict[str, str], text: str) -> None:
    """``text`` line by line (``out`` keeps no newline inside a line), or one document."""
    if out.as_json:
        out.document({**what, "text": text})
        return
    for line in text.rstrip("\n").splitlines():
        out.line(line)
