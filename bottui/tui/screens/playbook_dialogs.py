"""The one confirmation of a playbook run: its steps, a duration field, a reason field.

The duration is typed like ``--for`` (``90s``, ``30m``, ``2h``, ``1h30m``);
empty means the playbook's default (named in the placeholder) or none. A
protected profile also wants the project id typed, as every change does, in
the last field.
The dialog returns a :class:`RunAnswer`, or None when cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.content import Content
from textual.widgets import Input

from bottui.tui.change_prompt import Timing
from bottui.tui.screens.change_form import ConfirmDialog, ReasonAsked


@dataclass(frozen=True)
class RunAnswer:
    """What the confirmation decided: when to revert (None: never) and why."""

    revert_after: timedelta | None
    reason: str | None


class PlaybookConfirm(ConfirmDialog):
    """Run a playbook? One confirmation for every step, a form like every change's.

    The fields, top to bottom: the reason, the duration, and (a protected
    profile) the project id typed last; Enter moves down them and sends only
    from the last field of a complete form (:class:`~bottui.tui.screens.dialogs.ConfirmDialog`).
    """

    def __init__(
        self,
        title: str,
        body: Content,
        listing: Content,
        *,
        default: timedelta | None,
        default_text: str | None,
        reason: ReasonAsked,
        typed: str | None = None,
        decision: str | None = None,
    ) -> None:
        super().__init__(
            title,
            body,
            "Run",
            expected=typed,
            reason=reason,
            listing=listing,
            timing=Timing(),
            decision=decision,
        )
        self._default = default
        self._default_text = default_text

    def _duration_input(self) -> ComposeResult:
        for widget in super()._duration_input():
            if isinstance(widget, Input):
                widget.placeholder = (
                    f"{self._default_text} (default)" if self._default_text else "never"
                )
                widget.tooltip = "Revert after this long: 30m, 2h (empty: the playbook's own)"
            yield widget

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if result is True:
            after = self.revert_after if self.revert_after is not None else self._default
            return super().dismiss(RunAnswer(after, self.reason))
        return super().dismiss(None)


__all__ = ["PlaybookConfirm", "RunAnswer"]
