"""``u``: undo a journal row (the Journal screen) or the current project's newest change.

The planning, refusals and the changed-since check are
:mod:`bottui.ops.undo`'s; this module runs them in a worker of the
screen, builds the confirmation's body (before -> after, and who changed
the object since) and says how it ended. A row that cannot be undone is
refused with its reason, through the app's one error path; nothing else
is offered in its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from textual.content import Content

from bottui.ops import journal_view, undo
from bottui.plaintext import clean
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.ops.plan import PlannedChange
    from bottui.store.journal.records import JournalEntry
    from bottui.tui.screens.base import BottuiScreen

#: Worker group of an undo's send (the Journal screen reads again after it).
UNDO_SENDS: Final = "undo"


def start_undo(screen: BottuiScreen, entry: JournalEntry | None) -> None:
    """Plan the undo of ``entry`` (None: the current project's newest change), confirm, send."""
    services = screen.services
    session = services.session
    pages = services.journal_pages()
    current = services.current
    planned: list[undo.RowUndo] = []

    async def plan() -> PlannedChange[Any]:
        # Refusals (another project, a revocation, an unknown outcome...) are
        # reported like any error: the toast says why, nothing is sent.
        if entry is None:
            row = await undo.plan_latest(session, pages, current)
        else:
            row = await undo.plan_row(session, pages, entry, current)
        planned.append(row)
        return await undo.plan_row_change(session, row)

    def send(change: PlannedChange[Any]) -> None:
        row = planned[0]

        async def work() -> None:
            applied = await undo.apply_row(session, pages, row, change)
            where = (
                f"journal #{applied.journal_id}"
                if applied.journal_id is not None
                else "NOT journaled"
            )
            screen.notify(
                clean(
                    f"{row.plan.what} is {row.plan.restored} again "
                    f"({where}, undoes {journal_view.entry_ref(row.plan.entry)})"
                ),
                title="Undone",
                markup=False,
            )
            # The ops layer taught the inventory: every screen reads it again.
            services.inventory_changed()

        screen.call(work, label="Undoing", group=UNDO_SENDS)

    # Planned once: the dialog, the dry run and the request sent are this plan's.
    services.plan_and_confirm(
        screen,
        plan,
        lambda change: ChangePrompt.of(
            change,
            undo_body(planned[0]),
            title=f"Undo journal entry {journal_view.entry_ref(planned[0].plan.entry)}?",
        ),
        send,
        operation="Undo" if entry is None else f"Undo journal entry #{entry.id}",
    )


def undo_body(row: undo.RowUndo) -> Content:
    """The confirmation: which entry, what, before -> after, and what changed since."""
    plan = row.plan
    entry = plan.entry
    before = journal_view.value_text(plan.current) if plan.current is not None else "not known"
    lines: list[Content] = []
    warning = row.warning()
    if warning:
        lines.append(
            join(
                Content.styled(clean(warning[0]), "bold"),
                "\n",
                safe("\n".join(warning[1:]), keep_newlines=True),
            )
        )
    lines += [
        join(
            f"Journal entry {journal_view.entry_ref(entry)}, {journal_view.when(entry)}, by ",
            safe(entry.operator),
        ),
        join("Rate limiter " if plan.kind == "limiter" else "Dimension ", safe_id(plan.target_id)),
        join("Project ", safe_id(plan.project), ", account ", safe_id(plan.account)),
        join(
            "Now: ",
            safe(before),
            "\nAfter the undo: ",
            Content.styled(clean(plan.restored), "bold reverse"),
        ),
        Content(
            "A new request sets the value back"
            + (
                f"; the journal records it as the undo of #{plan.undoes}."
                if plan.undoes is not None
                else " (a teammate's change: journaled as a change of its own)."
            )
        ),
    ]
    return Content("\n").join(lines)


__all__ = ["UNDO_SENDS", "start_undo", "undo_body"]
