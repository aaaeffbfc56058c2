"""Where Tab goes from a dialog's last field: never onto Cancel with typing to lose.

Dialogs open with focus where a stray Enter is harmless (Cancel, or the
first field), and Tab follows the fields in order. Left to the DOM order,
Tab from the *last* field lands on **Cancel**, so Tab then Enter, the way
one leaves a form, threw away what was just typed, silently (a reason, a
typed project id, a new project's fields). The rule, for every modal dialog:

* Tab from a dialog's last field, while any of its fields holds text, goes
  to the dialog's primary button when it can be pressed: the change's
  **Confirm** (Enter there is the deliberate second key the confirmation
  asks for anyway, as Enter in the reason field already leads there) or
  the form's primary action (Add, Save, Store in keyring; never a
  destructive neighbour such as Delete stored);
* when that button cannot be pressed yet (a protected profile's project id
  not typed right, a form not valid), Tab goes back to the field to fix
  (the first one marked invalid, else the first field);
* with nothing typed, Tab follows the DOM order: Cancel loses nothing;
* Shift+Tab is never changed: Cancel stays one key away, and Esc cancels.
"""

from __future__ import annotations

from typing import Any

from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, Input, TextArea


def _is_cancel(widget: Widget | None) -> bool:
    return isinstance(widget, Button) and (widget.id or "").split("-")[-1] == "cancel"


def _primary(screen: Screen[Any]) -> Button | None:
    """The button the dialog is for: a change's Confirm, or a form's primary action."""
    for button in screen.query(Button):
        if (
            button.id == "confirm"
            or button.variant == "primary"
            or button.has_class("primary-action")
        ):
            return button if button.focusable else None  # disabled: not focusable
    return None


def tab_target(screen: Screen[Any]) -> Widget | None:
    """Where Tab should go instead of the next widget, or None for the usual order."""
    if not isinstance(screen, ModalScreen):
        return None
    chain = screen.focus_chain
    focused = screen.focused
    if focused is None or focused not in chain:
        return None
    fields = [w for w in chain if isinstance(w, Input | TextArea)]
    if not fields or focused is not fields[-1]:
        return None
    following = chain[(chain.index(focused) + 1) % len(chain)]
    typed = any((f.value if isinstance(f, Input) else f.text) for f in fields)
    if not typed or not _is_cancel(following):
        return None
    primary = _primary(screen)
    if primary is not None:
        return primary
    # A change's confirmation knows which field keeps it from being sent.
    to_fix = getattr(screen, "field_to_fix", None)
    if callable(to_fix) and isinstance(found := to_fix(), Widget):
        return found
    invalid = [f for f in fields if f.has_class("-invalid")]
    return (invalid or fields)[0]
