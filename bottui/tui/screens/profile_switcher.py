"""Profiles in the TUI: the switcher (``P``) and the form that creates or edits a profile.

The profile form (:class:`ProfileForm`): create a profile, or edit one, with every
option ``config.toml`` holds.

Used by the first run (:mod:`bottui.tui.screens.projects`) and the profile
switcher. The fields are those
of a profile: name, base URL, team store URL, operator, and the read-only,
protected and require-reason flags. Each is checked as the operator types,
with the checks of :mod:`bottui.ops.profiles` (those of ``bottui profile``
and of the config file): the message goes under the field and the submit
button stays disabled while anything is invalid. The form returns a checked
:class:`~bottui.store.config.config_model.Profile`; the caller saves it in a worker.

An edit keeps the profile's name (the inventory is filed under it: a new
name would leave it behind), its default account and project, and its
per-project threshold settings.

The profile switcher (:class:`ProfileSwitcher`, ``P``, palette "Switch profile…"):
every profile, and what to do with it.

One row per profile of ``config.toml``: whether it is the one in use, its
name, base URL and flags (read-only, protected, reason required, team
store), in words so that they read the same without colour. Enter switches
to the highlighted profile (the dialog closes with its name; the app
switches: :mod:`bottui.tui.quit_or_switch`); ``n`` creates a profile, ``e``
edits one, ``x`` removes one after a confirmation. The profile in use is
never removed: switch first.

Every read and write of ``config.toml`` runs in a worker through
:mod:`bottui.ops.profiles` (the store executor), never on the event loop.
Names and URLs come from a file: shown as ids (invisible characters made
visible), never as markup.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar, Final

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, DataTable, Input, Label, Static

from bottui.api.errors import RefusedError, ValidationError
from bottui.ops import profiles
from bottui.ops.profiles import (
    check_operator,
    check_profile_name,
    check_profile_url,
    check_store_url,
    new_profile,
)
from bottui.plaintext import clean
from bottui.store.config.config_model import Config, Profile
from bottui.tui.error_report import EXPECTED_ERRORS, field_words
from bottui.tui.perf.textual_private import MeasuredTable
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import _Dialog
from bottui.tui.screens.project_dialogs import FormField, StateCheckbox, _FormDialog
from bottui.tui.services import services_of
from bottui.tui.widgets.untrusted_text import PlainInput, join, safe_id, safe_id_text

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


_URL_HINT: Final = "https:// (plain http:// only for a loopback host)"
#: The text fields after the name: (label, id and ``Profile`` attribute, placeholder, hint).
TEXT_FIELDS: Final = (
    ("Base URL", "base-url", "https://api.example.com", _URL_HINT),
    ("Team store", "store", "optional: postgresql://host/db (no password)", ""),
    ("Operator", "operator", "optional: who the journal says made the changes", ""),
)


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
            for label, name, placeholder, hint in TEXT_FIELDS:
                text = clean(getattr(edit, name.replace("-", "_")) or "") if edit else ""
                field = PlainInput(value=text, id=name, placeholder=placeholder, compact=True)
                yield FormField(label, field, hint=hint, id=f"field-{name}")
            for flag, value in (
                ("read-only", edit.read_only if edit else False),
                ("protected", edit.protected if edit else False),
                ("require-reason", edit.require_reason if edit else False),
            ):
                yield StateCheckbox(flag_label(flag, value), value, id=flag, compact=True)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="form-cancel", classes="closes")
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

    def result(self) -> Profile | None:
        """The checked profile, showing each field's message; None while invalid."""
        edit = self._edit
        if edit is not None:
            name, ok = edit.name, True
        else:
            name = self.query_one("#profile", Input).value
            ok = self.check_field(
                "#field-profile", name, lambda raw: check_profile_name(raw, self._existing)
            )
        raw_url = self.query_one("#base-url", Input).value.strip()
        ok = self.check_field("#field-base-url", raw_url, check_profile_url) and ok
        store = self.query_one("#store", Input).value
        ok = self.check_field("#field-store", store, check_store_url) and ok
        operator = self.query_one("#operator", Input).value
        ok = self.check_field("#field-operator", operator, check_operator) and ok
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

    def unchanged(self, result: Profile) -> bool:
        return self._edit is not None and result == self._edit


#: The words of the flags column, in this order.
FLAG_NAMES: tuple[tuple[str, str], ...] = (
    ("read_only", "read-only"),
    ("protected", "protected"),
    ("require_reason", "reason required"),
)


def profile_flags(profile: Profile) -> str:
    """The flags column: every flag that is on, in words; "-" when none."""
    words = [word for attr, word in FLAG_NAMES if getattr(profile, attr)]
    if profile.store:
        words.append("team store")
    return ", ".join(words) or "-"


class ProfileSwitcher(_Dialog):
    """Every profile: Enter switches, n new, e edit, x remove. Returns the name to switch to."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_dialog", "Close", id="profiles.close"),
        Binding("n", "new", "New profile", id="profiles.new"),
        Binding("e", "edit", "Edit profile", id="profiles.edit"),
        Binding("x", "remove", "Remove profile", id="profiles.remove"),
        Binding("delete", "remove", "Remove profile", show=False, id="profiles.remove2"),
    ]
    DEFAULT_CSS: ClassVar[str] = """
    ProfileSwitcher > Vertical { width: 96; padding: 0 1; max-height: 100%; }
    ProfileSwitcher #profiles-table { height: 2; margin-bottom: 1; }
    ProfileSwitcher #profiles-keys { color: $text-muted; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._config: Config | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Content("Profiles"), classes="dialog-title")
            yield Static(Content("Reading config.toml…"), id="profiles-current")
            table: DataTable[str | Text] = MeasuredTable(id="profiles-table", cursor_type="row")
            table.add_columns("In use", "Name", "Base URL", "Flags")
            yield table
            yield Static(
                Content(
                    "enter switch to it · n new · e edit · x remove · esc close\n"
                    "Tokens stay in the keyring; a profile's inventory stays when it is removed."
                ),
                id="profiles-keys",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("New", id="profiles-new")
                yield Button("Edit", id="profiles-edit")
                yield Button("Remove", id="profiles-remove")
                yield Button("Close", id="profiles-close", variant="primary", classes="closes")

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._reload()

    # -- reading ---------------------------------------------------------------------

    @work(group="profiles-read", exclusive=True, exit_on_error=False)
    async def _reload(self, select: str | None = None) -> None:
        services = services_of(self)
        try:
            config = await profiles.read_config(services.session.config_store)
        except EXPECTED_ERRORS as exc:  # a damaged config.toml: said, and the dialog closes
            services.report(exc)
            self.dismiss(None)
            return
        self._show(config, select)

    def _in_use(self) -> str | None:
        return services_of(self).session.settings.profile_name

    def _show(self, config: Config, select: str | None) -> None:
        self._config = config
        in_use = self._in_use()
        table: DataTable[str | Text] = self.query_one(DataTable)
        table.clear()
        for name, profile in config.profiles.items():
            table.add_row(
                "▶ in use" if name == in_use else "",
                safe_id_text(name),
                safe_id_text(profile.base_url),
                profile_flags(profile),
                key=name,
            )
        # As tall as its rows (and the header), up to 12: an auto-height table in
        # an auto-height dialog takes more than its rows.
        table.styles.height = min(len(config.profiles), 11) + 1
        current = self.query_one("#profiles-current", Static)
        if in_use is None:
            current.update(Content("No profile in use. Enter on a row switches to it."))
        else:
            current.update(join("In use: ", safe_id(in_use), " (always shown in the header)"))
        wanted = select if select in config.profiles else in_use
        if wanted in config.profiles:
            table.move_cursor(row=list(config.profiles).index(wanted), animate=False)
        self.query_one("#profiles-edit", Button).disabled = not config.profiles
        self.query_one("#profiles-remove", Button).disabled = not config.profiles

    def _selected(self) -> Profile | None:
        """The highlighted profile, or None (and a word why)."""
        config = self._config
        table: DataTable[str | Text] = self.query_one(DataTable)
        if config is None or not config.profiles or table.row_count == 0:
            self.notify("No profile yet: press n to create one.", markup=False)
            return None
        row = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return config.profiles.get(row) if row is not None else None

    # -- actions ---------------------------------------------------------------------

    @on(DataTable.RowSelected)
    def action_switch(self) -> None:
        """Switch to the highlighted profile (the dialog closes; the app switches)."""
        profile = self._selected()
        if profile is None:
            return
        if profile.name == self._in_use():
            self.notify(clean(f"Already on profile {profile.name}."), markup=False)
            return
        self.dismiss(profile.name)

    @on(Button.Pressed, "#profiles-new")
    def action_new(self) -> None:
        """Create a profile (every option); it is not switched to until Enter."""
        names = list(self._config.profiles) if self._config else []
        self._save(ProfileForm(existing=names), replace=False)

    @on(Button.Pressed, "#profiles-edit")
    def action_edit(self) -> None:
        """Edit the highlighted profile (its name stays)."""
        profile = self._selected()
        if profile is not None:
            self._save(ProfileForm(edit=profile), replace=True)

    @work(group="profiles-write", exit_on_error=False)
    async def _save(self, form: ProfileForm, *, replace: bool) -> None:
        """Write the profile the form returns to config.toml (nothing when cancelled)."""
        profile = await services_of(self).ask(form)
        if profile is None:
            return
        services = services_of(self)
        try:
            config = await profiles.add_profile(
                services.session.config_store, profile, replace=replace
            )
        except EXPECTED_ERRORS as exc:  # the name taken meanwhile, a file gone bad
            services.report(exc)
            return
        self._show(config, profile.name)
        saved = "saved" if replace else "created"
        self.notify(clean(f"Profile {profile.name} {saved} in config.toml."), markup=False)
        if replace and profile.name == self._in_use():
            # The profile in use changed: the app works under its new options now.
            self.app.switch_to_profile(profile.name)  # type: ignore[attr-defined]

    @on(Button.Pressed, "#profiles-remove")
    def action_remove(self) -> None:
        """Remove the highlighted profile after a confirmation; never the one in use."""
        profile = self._selected()
        if profile is None:
            return
        name = profile.name
        if name == self._in_use():
            services_of(self).report(
                RefusedError(
                    "This is the profile in use",
                    "Switch to another profile first (Enter on its row), then remove this one.",
                )
            )
            return
        body = join(
            "Remove profile ",
            safe_id(name),
            " (",
            safe_id(profile.base_url),
            ") from config.toml.\n"
            "Its tokens stay in the keyring, its inventory and the journal stay on disk.",
        )
        dialog = ConfirmDialog("Remove this profile?", body, "Remove profile")
        self._remove(name, dialog)

    @work(group="profiles-write", exit_on_error=False)
    async def _remove(self, name: str, dialog: ConfirmDialog) -> None:
        """Remove the profile from config.toml once the operator said so."""
        services = services_of(self)
        if not await services.ask(dialog):
            return
        try:
            config = await profiles.remove_other_profile(services.session, name)
        except EXPECTED_ERRORS as exc:
            services.report(exc)
            return
        self._show(config, None)
        self.notify(clean(f"Profile {name} removed from config.toml."), markup=False)
