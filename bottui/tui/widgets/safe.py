"""Untrusted text, made safe for a widget.

Every string that came from the server, the user, a file or the inventory
reaches a widget through these functions: control characters are replaced
(:func:`bottui.plaintext.clean`) and the result is wrapped as plain
``Content`` or ``Text``, so ``[@click=app.quit]`` or a bare ``[/]`` stays
literal text and no escape sequence reaches the terminal. Ids go through
:func:`safe_id` / :func:`safe_id_text`, which also show invisible characters
(a zero-width space as ``\\u200b``: :func:`bottui.plaintext.show_id`), so two
ids that look the same can be told apart.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

from bottui.plaintext import clean, show_id


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
