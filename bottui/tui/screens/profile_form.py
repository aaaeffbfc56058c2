"""The profile form: create a profile, or edit one, with every option ``config.toml`` holds.

Used by the first run (:mod:`bottui.tui.screens.first_run`) and the profile
switcher (:mod:`bottui.tui.screens.profile_switcher`). The fields are those
of a profile: name, base URL, team store URL, operator, and the read-only,
protected and require-reason flags. Each is checked as the operator types,
with the checks of :mod:`bottui.ops.profiles` (those of ``bottui profile``
and of the config file): the message goes under the field and the submit
button stays disabled while anything is invalid. The form returns a checked
:class:`~bottui.store.config.model.Profile`; the caller saves it in a worker.

An edit keeps the profile's name (the inventory is filed under it: a new
name would leave it behind), its default account and project, and its
per-project threshold settings.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Label, Static

from bottui.api.errors import ValidationError
from bottui.ops.profiles import (
    check_operator,
    check_profile_name,
    check_profile_url,
    check_store_url,
    new_profile,
)
from bottui.plaintext import clean
from bottui.store.config.model import Profile
from bottui.tui.error_report import field_words
from bottui.tui.screens.project_dialogs import _FormDialog
from bottui.tui.widgets.form_field import FormField, StateCheckbox
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe_id

#: Each flag's words; the state is said in words too (under NO_COLOR a
#: checkbox's mark looks the same on and off).
FLAG_WORDS: dict[str, str] = {
    "read-only": "Read-only: refuse every change",
    "protected": "Protected: type the project id to confirm every change",
    "require-reason": "Require a reason for every change",
}


def flag_label(flag: str, on: bool) -> str:
    """A flag checkbox's label: its words and its state."""
    words = FLAG_WORDS[flag]
    head, _, rest = words.partition(":")
    state = "on" if on else "off"
    return f"{head} ({state}):{rest}" if rest else f"{words} ({state})"


class ProfileForm(_FormDialog):
    """Create a profile, or edit one (``edit``): every option of ``config.toml``.

    Args:
        existing: Names of the profiles already in the config (or later,
            once read: :meth:`know_existing`).
        edit: The profile to edit; its name stays.
        first: The first run's form: says where the profile goes, offers "default".
    """

    # Seven fields and three flags in 80x24: no padding rows, no gaps between fields.
    DEFAULT_CSS: ClassVar[str] = """
    ProfileForm > Vertical { padding: 0 2; max-height: 100%; }
    ProfileForm FormField { margin-bottom: 0; }
    ProfileForm Checkbox { margin: 0 1; }
    ProfileForm .hint { margin-bottom: 1; }
    ProfileForm #form-profile-name { padding: 0 1; }
    """

    def __init__(
        self,
        *,
        existing: Collection[str] = (),
        edit: Profile | None = None,
        first: bool = False,
    ) -> None:
        super().__init__()
        self._existing = set(existing)
        self._edit = edit
        self._first = first

    def know_existing(self, names: Collection[str]) -> None:
        """The names taken, read after the form opened: check the name against them."""
        self._existing = set(names)
        if not self.is_mounted or self._edit is not None:
            return
        name = self.query_one("#profile", Input)
        if name.value == "default" and "default" in self._existing:
            name.value = ""  # the offered name is taken: offer none (as if known at once)
        self.validate_form()

    def compose(self) -> ComposeResult:
        edit = self._edit
        with Vertical():
            if edit is not None:
                title = "Edit profile"
            else:
                title = "Where is the API?" if self._first else "New profile"
            yield Label(Content(title), classes="dialog-title")
            if self._first:
                yield Static(
                    Content(
                        "bottui keeps the API's base URL in a profile (config.toml). "
                        "Tokens never go there: they go to the keyring."
                    ),
                    classes="hint",
                )
            if edit is not None:
                yield Static(
                    join("Profile name   ", safe_id(edit.name), "  (a name cannot change)"),
                    id="form-profile-name",
                )
            else:
                offered = "default" if self._first and "default" not in self._existing else ""
                yield FormField(
                    "Profile name",
                    PlainInput(value=offered, id="profile", compact=True),
                    id="field-profile",
                )
            yield FormField(
                "Base URL",
                PlainInput(
                    value=clean(edit.base_url) if edit else "",
                    id="base-url",
                    placeholder="https://api.example.com",
                    compact=True,
                ),
                hint="https:// (plain http:// only for a loopback host)",
                id="field-base-url",
            )
            yield FormField(
                "Team store",
                PlainInput(
                    value=clean(edit.store or "") if edit else "",
                    id="store",
                    placeholder="optional: postgresql://host/db (no password)",
                    compact=True,
                ),
                id="field-store",
            )
            yield FormField(
                "Operator",
                PlainInput(
                    value=clean(edit.operator or "") if edit else "",
                    id="operator",
                    placeholder="optional: who the journal says made the changes",
                    compact=True,
                ),
                id="field-operator",
            )
            for flag, value in (
                ("read-only", edit.read_only if edit else False),
                ("protected", edit.protected if edit else False),
                ("require-reason", edit.require_reason if edit else False),
            ):
                yield StateCheckbox(flag_label(flag, value), value, id=flag, compact=True)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="form-cancel")
                label = "Save" if edit is not None else "Save profile"
                yield Button(label, id="form-submit", variant="primary")

    def first_field(self) -> Input:
        if self._first or self._edit is not None:
            return self.query_one("#base-url", Input)
        return self.query_one("#profile", Input)

    @on(Checkbox.Changed)
    def _flag_changed(self, event: Checkbox.Changed) -> None:
        flag = event.checkbox.id
        if flag in FLAG_WORDS:
            event.checkbox.label = flag_label(flag, event.value)

    def _check(self, field_id: str, raw: str, check: object) -> bool:
        """Run ``check`` on ``raw``; show its refusal under the field (none while empty)."""
        field = self.query_one(field_id, FormField)
        try:
            check(raw)  # type: ignore[operator]
        except ValidationError as exc:
            field.show_error(None if raw == "" else field_words(exc))
            field.set_class(True, "-invalid")
            return False
        field.show_error(None)
        return True

    def _profile(self) -> Profile | None:
        edit = self._edit
        if edit is not None:
            name, ok = edit.name, True
        else:
            name = self.query_one("#profile", Input).value
            ok = self._check(
                "#field-profile", name, lambda raw: check_profile_name(raw, self._existing)
            )
        raw_url = self.query_one("#base-url", Input).value.strip()
        ok = self._check("#field-base-url", raw_url, check_profile_url) and ok
        store = self.query_one("#store", Input).value
        ok = self._check("#field-store", store, check_store_url) and ok
        operator = self.query_one("#operator", Input).value
        ok = self._check("#field-operator", operator, check_operator) and ok
        if not ok:
            return None
        try:
            return new_profile(
                name,
                raw_url,
                read_only=self.query_one("#read-only", Checkbox).value,
                protected=self.query_one("#protected", Checkbox).value,
                require_reason=self.query_one("#require-reason", Checkbox).value,
                store=store,
                operator=operator,
                existing=() if edit is not None else self._existing,
                keep=edit,
            )
        except ValidationError as exc:
            self.query_one("#field-base-url", FormField).show_error(field_words(exc))
            return None

    def validate_form(self) -> bool:
        ok = self._profile() is not None
        self.query_one("#form-submit", Button).disabled = not ok
        return ok

    def submit(self) -> None:
        profile = self._profile()
        if profile is None:
            return
        if self._edit is not None and profile == self._edit:
            self.dismiss(None)  # untouched: nothing to write
            return
        self.dismiss(profile)
