"""``bottui doctor``: one screen of checks, each with a verdict and a fix.

The checks live in :mod:`bottui.ops.doctor`; here they are run and shown:
one block per check (verdict, title, what was found, the fix), or with
``--json`` one document ``{"checks": [{"id", "title", "verdict", "detail",
"fix"}], "summary": {...}, "healthy": bool}``. Every string passes through
:func:`bottui.plaintext.clean` (``detail`` keeps its newlines). Exit 0 when
no check found a problem (warnings do not fail), 1 otherwise.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import textwrap
from typing import Any, Final

from bottui.api.errors import EXIT_API, EXIT_OK
from bottui.cli.apps import known_bindings
from bottui.cli.output import Output
from bottui.cli.parser import SESSION, Args, command
from bottui.ops.doctor import Check, Verdict, prepare, run_checks
from bottui.plaintext import clean
from bottui.store.files import Locations

_VERDICT_WIDTH: Final = 8
_TITLE_WIDTH: Final = 20


def cmd_doctor(args: Args, out: Output) -> int:
    """``bottui doctor [--json]``."""
    prepared = prepare(Locations.default(), args, os.environ, known_bindings())
    checks = asyncio.run(run_checks(prepared))
    counts = {verdict.value: sum(c.verdict is verdict for c in checks) for verdict in Verdict}
    healthy = counts[Verdict.PROBLEM.value] == 0
    if out.as_json:
        out.document(
            {"checks": [_json(check) for check in checks], "summary": counts, "healthy": healthy}
        )
    else:
        width = min(shutil.get_terminal_size((100, 24)).columns, 120) - 1
        for check in checks:
            _show(out, check, width)
        out.line()
        out.line(_summary(counts, healthy))
    return EXIT_OK if healthy else EXIT_API


def _json(check: Check) -> dict[str, Any]:
    return {
        "id": clean(check.id),
        "title": clean(check.title),
        "verdict": check.verdict.value,
        "detail": clean(check.detail, keep_newlines=True),
        "fix": clean(check.fix),
    }


def _show(out: Output, check: Check, width: int) -> None:
    """``verdict  title  detail``; further lines and the fix wrapped under the detail."""
    indent = " " * (_VERDICT_WIDTH + 1 + _TITLE_WIDTH + 1)
    head = f"{check.verdict.value:<{_VERDICT_WIDTH}} {check.title:<{_TITLE_WIDTH}} "
    lines = check.detail.split("\n")
    if check.fix:
        lines.append(f"fix: {check.fix}")
    for number, line in enumerate(lines):
        wrapped = textwrap.wrap(
            clean(line),
            width=max(width, len(indent) + 30),
            initial_indent=head if number == 0 else indent,
            subsequent_indent=indent + "  ",
            break_on_hyphens=False,
            break_long_words=False,
        )
        for part in wrapped or [head.rstrip()]:
            out.line(part)


def _summary(counts: dict[str, int], healthy: bool) -> str:
    plural = {Verdict.PROBLEM: "problems", Verdict.WARNING: "warnings"}
    parts = [
        f"{counts[v.value]} {plural.get(v, v.value) if counts[v.value] != 1 else v.value}"
        for v in (Verdict.PROBLEM, Verdict.WARNING, Verdict.OK, Verdict.SKIPPED)
    ]
    verdict = "everything needed works" if healthy else "something needed does not work"
    return f"{', '.join(parts)}: {verdict}"


def _add_doctor(commands: Any) -> None:
    """``bottui doctor`` on the ``commands`` subparsers."""
    command(
        commands,
        "doctor",
        examples=[
            "bottui doctor",
            "bottui doctor --profile prod",
            "bottui doctor --json | jq '.checks[] | select(.verdict == \"problem\")'",
        ],
        exits=[
            (0, "no problem (warnings and skipped checks do not fail)"),
            (1, "at least one problem: something needed does not work"),
            (2, "invalid command line"),
            130,
        ],
        common=SESSION,
        notes="doctor",
    )


#: The command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"doctor": _add_doctor}
