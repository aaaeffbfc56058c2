"""The dry run's dialog: the exact request(s), unwrapped, and ``c`` to copy the curl.

A dry run shows what would be sent and sends nothing. The curl command is
the part an operator takes elsewhere (a ticket, another shell), so it is
shown on one line each, never soft-wrapped (a wrapped command pasted back
breaks), in an area that scrolls both ways and whose text the mouse can
select. ``c`` (or the Copy button) sends every curl command shown, one per
line, to the terminal's clipboard with OSC 52
(:meth:`textual.app.App.copy_to_clipboard`): it works over SSH and in tmux
with ``set-clipboard on``. A terminal never acknowledges OSC 52, so the
dialog and a notice say exactly what was sent (how many characters, and
how it starts), and the text stays on screen for copying by hand.

The curl never holds a token: its header names a shell variable
(``"$BOTTUI_API_KEY"``, ``"$BOTTUI_ACCESS_TOKEN"``; see :mod:`bottui.api.requests`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical
from textual.content import Content
from textual.widgets import Button, Label, Static

from bottui.plaintext import clean
from bottui.tui.screens.dialogs import RequestsDialog
from bottui.tui.widgets.safe import safe

#: How much of the copied text the notice repeats.
PREVIEW: Final = 100


def copied_words(text: str) -> str:
    """``copied 212 characters: curl --silent …``: what went to the clipboard, in words."""
    commands = text.count("\n") + 1
    what = f"{len(text):,} characters"
    if commands > 1:
        what += f", {commands} curl commands, one per line"
    first = clean(text.split("\n", 1)[0])
    preview = first if len(first) <= PREVIEW else first[: PREVIEW - 1] + "…"
    return f"copied {what}: {preview}"


class DryRunDialog(RequestsDialog):
    """Dry run: the request(s) and their curl, unwrapped; ``c`` copies the curl.

    Args:
        lines: What the dialog shows (method, URL, headers, body, curl; untrusted).
        curls: The curl command of each request, copied by ``c``.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_curl", "Copy curl (OSC 52)", id="dry_run.copy"),
    ]
    DEFAULT_CSS = """
    DryRunDialog > Vertical { width: 95%; }
    DryRunDialog #dry-run-scroll {
        height: auto; max-height: 40vh; overflow-x: auto; overflow-y: auto;
        border: round $primary-muted;
    }
    DryRunDialog #dry-run-scroll:focus { border: round $accent; }
    /* One line per line of the request: a wrapped curl pasted back breaks. */
    DryRunDialog #dry-run { width: auto; text-wrap: nowrap; text-overflow: clip; }
    DryRunDialog #copy-status { margin-top: 1; }
    """

    def __init__(self, lines: Sequence[str], curls: Sequence[str]) -> None:
        # The request lines end in a blank line: no empty row at the box's foot.
        shown = list(lines)
        while shown and not shown[-1].strip():
            shown.pop()
        super().__init__(shown)
        self._curls = list(curls)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Dry run: nothing was sent"), classes="dialog-title")
            with ScrollableContainer(id="dry-run-scroll"):
                yield Static(safe("\n".join(self._lines), keep_newlines=True), id="dry-run")
            yield Static(
                Content(
                    "c copies the curl (it holds no token) · arrows scroll the box "
                    "when focused · the mouse selects text"
                ),
                id="copy-status",
                classes="hint",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Copy curl (c)", id="copy", disabled=not self._curls)
                yield Button("Close", id="close", variant="primary")

    @property
    def curl_text(self) -> str:
        """What ``c`` copies: each curl command, one per line."""
        return "\n".join(self._curls)

    @on(Button.Pressed, "#copy")
    def action_copy_curl(self) -> None:
        """Send the curl command(s) to the clipboard (OSC 52) and say what was sent."""
        text = self.curl_text
        if not text:
            return
        self.app.copy_to_clipboard(text)
        words = copied_words(text)
        # The terminal says nothing back: the dialog keeps the words, the text stays above.
        what = "the curl command" if len(self._curls) == 1 else "the curl commands"
        self.query_one("#copy-status", Static).update(
            Content(
                f"Sent to the terminal's clipboard (OSC 52): {len(text):,} characters, "
                f"{what} above. The terminal does not confirm it: if nothing pastes, "
                "select the text above with the mouse."
            )
        )
        self.notify(words, title="Sent to the clipboard (OSC 52)", markup=False)
