"""The "Discard changes?" question, asked before an editor closes with unsent edits.

Escape in an editor used to drop every edit without a word. This dialog
asks first, with **Keep editing** focused, so Enter or a second Escape
never throws edits away: only the Discard button does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from bottui.tui.widgets.untrusted_text import safe


def discard_title(changed: Sequence[str]) -> str:
    """``Discard changes to 2 thresholds?``, naming the name apart when it changed."""
    thresholds = [name for name in changed if name != "name"]
    count = len(thresholds)
    parts = [f"{count} threshold{'' if count == 1 else 's'}"] if count else []
    if "name" in changed:
        parts.append("the name")
    return f"Discard changes to {' and '.join(parts)}?"


class DiscardDialog(ModalScreen[bool]):
    """Ask whether to drop unsent edits; True only when Discard is pressed.

    Args:
        changed: The fields edited, in the editor's order (``name``, ``block``...).
        lines: One line per edit, ``block: 0.8 -> 0.9`` (untrusted text: shown plain).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        # A second Escape keeps the edits: only the button discards them.
        Binding("escape", "keep", "Keep editing", id="discard.keep"),
    ]
    DEFAULT_CSS = """
    DiscardDialog { align: center middle; }
    DiscardDialog > Vertical {
        width: 60; max-width: 95%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    DiscardDialog .dialog-title { text-style: bold; margin-bottom: 1; }
    DiscardDialog .dialog-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    DiscardDialog .dialog-buttons Button { margin-left: 2; }
    """

    def __init__(self, changed: Sequence[str], lines: Sequence[str]) -> None:
        super().__init__()
        self._changed = list(changed)
        self._lines = list(lines)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content(discard_title(self._changed)), classes="dialog-title")
            yield Static(safe("\n".join(self._lines), keep_newlines=True), id="discard-edits")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep editing", id="keep", variant="primary")
                yield Button("Discard", id="discard", variant="error")

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    @on(Button.Pressed, "#keep")
    def action_keep(self) -> None:
        """Back to the editor, every edit kept."""
        self.dismiss(False)

    @on(Button.Pressed, "#discard")
    def _discard(self) -> None:
        self.dismiss(True)
