"""The CLI's one renderer of errors and dry runs, in text and in ``--json`` form.

Every error the CLI reports is a :class:`~bottui.api.errors.BottuiError`
(store errors included): its title and details go to stderr, its
:meth:`~bottui.api.errors.BottuiError.to_json` document to stdout under
``--json``, and its ``exit_code`` is the command's (CONVENTIONS.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bottui.api.errors import BottuiError
from bottui.cli.output import Output
from bottui.ops.durations import duration_text
from bottui.plaintext import clean

if TYPE_CHECKING:
    from bottui.ops.plan import PlannedChange


def render_error(out: Output, error: BottuiError) -> int:
    """Report ``error``: words on stderr, its document under --json; its exit code."""
    out.message(f"error: {error.title}")
    details = error.details
    if details:
        for part in clean(details, keep_newlines=True).splitlines():
            out.message(f"  {part}")
    if out.as_json:
        out.document(error.to_json())
    return error.exit_code


def render_dry_run(out: Output, plan: PlannedChange[Any], refused: str | None = None) -> None:
    """Print the plan's exact request(s) and an equivalent curl; the token stays a variable.

    ``refused`` says why sending it would be refused (``require_reason``
    without a reason): a dry run still shows the request, and says so.
    """
    from bottui.ops.plan import DRY_RUN_NOTE

    if plan.revert_after is not None and plan.previous is not None:
        stated = " (stated)" if plan.previous.stated else ""
        out.message(
            f"timed: would revert to {clean(plan.previous.text)}{stated} after "
            f"{duration_text(plan.revert_after)}"
        )
    if out.as_json:
        out.document(plan.dry_run_json(refused))
        if refused is not None:
            out.message(f"dry run: would be refused: {clean(refused)}")
        return
    for shown_line in plan.dry_run_lines():
        out.line(shown_line)
    if refused is not None:
        out.message(f"dry run: would be refused: {clean(refused)}")
    out.message(DRY_RUN_NOTE)
