"""A bulk revocation as asked for, and its confirmation.

A :class:`BulkOrder` is what the bulk dialog returns: the input (already
read once for its hash and line count), its dry-run plan, the concurrency
and whether to resume. :func:`confirm_bulk` puts it through the one
confirmation path (:meth:`~bottui.tui.services.TuiServices.confirm`):
read-only refuses, dry run shows the first requests, a protected profile
wants the project id typed, otherwise focus on Cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from textual.content import Content

from bottui.ops.bulk.engine import BulkPlan
from bottui.ops.bulk.input import BulkSource
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.widgets.bulk_words import plural
from bottui.tui.widgets.safe import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.tui.services import TuiServices

#: Requests a dry run shows in full (the plan keeps a few more).
DRY_RUN_SHOWN: Final = 5


@dataclass(frozen=True)
class BulkOrder:
    """One bulk revocation, ready to confirm and run.

    Attributes:
        account: The account id.
        project: The project id.
        source: The ids (pasted text or a file).
        plan: What :func:`bottui.ops.bulk.engine.plan_bulk` found in it; nothing sent.
        concurrency: Requests in flight at most.
        path: The file the ids come from, as given; None for pasted text.
        resume: Skip the ids an earlier run of the same input settled.
        settled: Ids an earlier run settled, when known (for the resume wording).
    """

    account: str
    project: str
    source: BulkSource
    plan: BulkPlan
    concurrency: int
    path: str | None = None
    resume: bool = False
    settled: int | None = None
    #: Why, as typed in the confirmation (journaled once per chunk).
    reason: str | None = None

    def origin(self) -> Content:
        """``pasted text`` or ``file /path/to/ids.txt`` (the path made safe)."""
        return Content("pasted text") if self.path is None else join("file ", safe(self.path))


def confirm_title(order: BulkOrder) -> str:
    """``Revoke 2 grants?``; a resume says that settled ids are skipped."""
    if order.resume:
        return f"Resume: revoke the grants of up to {plural(order.plan.count, 'id')}?"
    return f"Revoke {plural(order.plan.count, 'grant')}?"


def confirm_body(order: BulkOrder, project_name: str | None) -> Content:
    """Where, how many, from what, and what happens to the rest."""
    body = join(
        f"Withdraw the challenge grants of {plural(order.plan.count, 'id')} from ",
        order.origin(),
        "\nin project ",
        safe_id(order.project),
        join(" (", safe(project_name), ")") if project_name else "",
        ", account ",
        safe_id(order.account),
        ".",
    )
    notes: list[str] = []
    if order.plan.invalid_count:
        notes.append(f"{plural(order.plan.invalid_count, 'invalid line')} will not be sent.")
    if order.plan.duplicates:
        notes.append(f"{plural(order.plan.duplicates, 'repeated line')} sent once.")
    if order.resume:
        settled = "" if order.settled is None else f" ({order.settled:,} last time)"
        notes.append(
            f"Resume: ids an earlier run of this input settled{settled} are skipped; "
            "the others are sent."
        )
    notes.append(
        f"{order.concurrency} requests in flight at most. Each id goes to the journal. "
        "The run goes on in the background (B shows it); Stop stops it."
    )
    return join(body, "\n", "\n".join(notes))


def confirm_bulk(
    services: TuiServices, order: BulkOrder, then: Callable[[BulkOrder], None]
) -> None:
    """Ask before sending ``order`` (or show its first requests under dry run);
    ``then`` gets it with the reason typed in the confirmation."""
    count = order.plan.count
    services.confirm(
        ChangePrompt(
            title=confirm_title(order),
            body=confirm_body(order, services.project_name(order.account, order.project)),
            confirm_label="Resume" if order.resume else f"Revoke {plural(count, 'grant')}",
            project_id=order.project,
            plan=lambda: [request for _, request in order.plan.requests[:DRY_RUN_SHOWN]],
            decision=(
                f"{'resume: ' if order.resume else ''}revoke the challenge grants of "
                f"{plural(count, 'id')} in {order.account}/{order.project}"
            ),
        ),
        lambda reason: then(replace(order, reason=reason)),
    )
