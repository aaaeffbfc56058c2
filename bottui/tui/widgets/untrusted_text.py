"""Untrusted text in widgets: shown as plain text, and refused when pasted with control characters.

Every string that came from the server, the user, a file or the inventory
reaches a widget through :func:`safe` and its siblings: control characters are
replaced (:func:`bottui.plaintext.clean`) and the result is wrapped as plain
``Content`` or ``Text``, so ``[@click=app.quit]`` or a bare ``[/]`` stays
literal text and no escape sequence reaches the terminal. Ids go through
:func:`safe_id` / :func:`safe_id_text`, which also show invisible characters
(a zero-width space as ``\\u200b``: :func:`bottui.plaintext.show_id`), so two
ids that look the same can be told apart.

Editing widgets cannot go through ``safe()`` (the operator must edit the real
text). Measured on Textual 8.2.8: an ``Input`` or ``TextArea`` writes its text
to the terminal as is, so a pasted ``ESC [ 2 J`` clears the operator's screen
and an OSC sequence can set the window title. So :class:`PlainInput` refuses
such a paste and says why; tabs and line ends stay allowed (CSV, TSV, Windows
line ends). Replacing the characters would silently change the ids that are
sent; a file is the way to bring such input in: its bad lines are reported and
never shown raw. The ``TextArea`` variant is
:class:`~bottui.tui.screens.bulk_dialogs.PlainTextArea`, beside its one user.

A token is typed into a :class:`SecretInput`: Textual's password ``Input``
masks what it draws, but its copy and cut actions would still send the clear
value to the terminal's clipboard (an OSC 52 escape on the output stream).
This one refuses both.
"""

from __future__ import annotations

from typing import Any, Final

from rich.text import Text
from textual import events
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input

from bottui.plaintext import clean, has_control, show_id

# -- text shown: plain, cleaned --------------------------------------------------------


def safe(value: object, *, keep_newlines: bool = False) -> Content:
    """Plain ``Content`` for Static, Label, Button and other Textual widgets."""
    return Content(clean(value, keep_newlines=keep_newlines))


def safe_text(value: object, *, style: str = "") -> Text:
    """Plain Rich ``Text`` for DataTable cells, Tree labels and OptionList prompts."""
    return Text(clean(value), style=style, no_wrap=False)


def safe_id(value: object) -> Content:
    """An id as plain ``Content``, its invisible characters shown as ``\\uXXXX``."""
    return Content(show_id(value))


def safe_id_text(value: object, *, style: str = "") -> Text:
    """An id as plain Rich ``Text`` (table cells), invisible characters shown."""
    return Text(show_id(value), style=style, no_wrap=False)


def join(*parts: Content | str) -> Content:
    """Join trusted literal strings (our own words) and safe Content.

    Plain ``str`` parts are OUR text and are not parsed as markup either.
    """
    out = Content("")
    for part in parts:
        out += part if isinstance(part, Content) else Content(part)
    return out


# -- text pasted: refused with control characters --------------------------------------

#: Characters a pasted list of ids may hold.
_ALLOWED: Final = str.maketrans("", "", "\t\r\n")


def forbidden_in_paste(text: str) -> str | None:
    """The first character that makes ``text`` unsafe to show (``U+001B``), or None."""
    stripped = text.translate(_ALLOWED)
    if not has_control(stripped):
        return None
    first = next(ch for ch in stripped if has_control(ch))
    return f"U+{ord(first):04X}"


def refuse_paste(widget: Widget, event: events.Paste) -> bool:
    """Stop ``event`` and tell the operator when the paste is unsafe; True if refused."""
    code = forbidden_in_paste(event.text)
    if code is None:
        return False
    event.prevent_default()
    event.stop()
    widget.notify(
        f"The pasted text holds a control character ({code}) and was not pasted. "
        "Save it to a file and load the file: bad lines are reported and skipped.",
        title="Not pasted",
        severity="warning",
        markup=False,
    )
    return True


class PlainInput(Input):
    """An ``Input`` that refuses a paste holding control characters."""

    def _on_paste(self, event: events.Paste) -> None:
        # prevent_default() keeps Input's own paste handler from running.
        refuse_paste(self, event)


# -- a token typed ---------------------------------------------------------------------


class SecretInput(Input):
    """``Input(password=True)`` whose copy and cut do nothing."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["password"] = True
        super().__init__(**kwargs)

    def action_copy(self) -> None:
        """Never copy a secret."""

    def action_cut(self) -> None:
        """Never cut a secret to the clipboard."""

    def forget(self) -> None:
        """Clear the value (and with it the only clear copy outside the keyring)."""
        self.value = ""
