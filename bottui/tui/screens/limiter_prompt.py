"""The words of a rate limiter change's confirmation: what, where, and what is known now.

Split from :mod:`bottui.tui.screens.limiters` (one job: the confirmation's body) so
the screen stays under 500 lines; the multi-limiter confirmation uses the same phrases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content

from bottui.plaintext import clean
from bottui.tui.widgets.limiter_table import SOURCE_PHRASES, short_time, state_word, taught_words
from bottui.tui.widgets.untrusted_text import join, safe, safe_id

if TYPE_CHECKING:
    from bottui.ops.plan import PlannedChange


def phrase(source: str, known_at: str) -> str:
    """How a state is known, for the confirmation's sentence."""
    words = taught_words(source, known_at)
    if words is not None:
        return words
    return clean(SOURCE_PHRASES.get(source, source))


def limiter_body(
    plan: PlannedChange[Any],
    limiter_name: str | None,
    new_state: bool,
    project_name: str | None,
    flying: bool | None,
) -> Content:
    """A limiter change's confirmation body, from the plan.

    ``limiter_name`` is the table's, ``project_name`` the inventory's, ``flying``
    the state of a switch of this limiter still in flight (None: none).
    """
    account, project = plan.account, plan.project
    name = join(" (", safe(limiter_name), ")") if limiter_name else Content("")
    project_label = join(" (", safe(project_name), ")") if project_name else Content("")
    known = plan.previous
    if flying is not None:
        # The inventory learns the state only from the answer: until then it is stale.
        now = Content.styled(
            f"A switch to {'ON' if flying else 'OFF'} is in flight, not answered yet: "
            "its answer decides the state now.",
            "bold",
        )
    elif known is None or "isActive" not in known.value:
        now = Content("Its state now is not known.")
    else:
        now = join(
            "Last known: ",
            state_word(bool(known.value["isActive"])),
            f" since {short_time(known.known_at)} UTC",
            f" ({phrase(known.source, known.known_at)}).",
        )
    # Imported here: the plan's models are not on the way to the first frame.
    from bottui.ops.plan import LimiterTarget

    target = plan.target
    assert isinstance(target, LimiterTarget)
    return join(
        "Rate limiter ",
        safe_id(target.limiter_id),
        name,
        "\nProject ",
        safe_id(project),
        project_label,
        ", account ",
        safe_id(account),
        "\nNew state: ",
        Content.styled("ON" if new_state else "OFF", "bold reverse"),
        "\n",
        now,
    )


__all__ = ["limiter_body", "phrase"]
