"""The editor of one dimension: name, block and challenge thresholds, then confirmation.

Each threshold is a slider with an exact input beside it
(:class:`~bottui.tui.widgets.threshold_field.ThresholdField`). Review is
disabled while a field is invalid. A challenge threshold that can never be
reached (under the project's direction) is a warning line here and an
explicit question in the confirmation, which shows old -> new for each
field. Review plans the update once (:func:`bottui.ops.plan.plan_thresholds`)
and confirms that plan (:meth:`TuiServices.plan_and_confirm`); the editor
closes with the confirmed plan, and the Thresholds screen sends exactly it.
Escape (or Cancel) with edits unsent asks first
(:class:`~bottui.tui.screens.discard_dialog.DiscardDialog`, Keep editing
focused); with nothing edited it closes at once.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from bottui.api.client import ThresholdUpdate, build_thresholds
from bottui.api.errors import ValidationError
from bottui.api.models import DimensionThresholds
from bottui.api.requests import dimension_name, first_forbidden_char
from bottui.ops import plan as planning
from bottui.ops.plan import PlannedChange
from bottui.ops.threshold_rules import never_reached, warning_words
from bottui.store.config.model import ProjectSettings
from bottui.store.inventory.records import DimensionEntry
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.help_rows import DIALOG_HELP
from bottui.tui.services import TuiServices, services_of
from bottui.tui.widgets.plain_paste import PlainInput
from bottui.tui.widgets.safe import join, safe, safe_id
from bottui.tui.widgets.slider import format_number
from bottui.tui.widgets.threshold_field import ThresholdField

UNKNOWN = "unknown"
REVIEW = "Review and send"
FIX_FIRST = "Fix the fields first"


def editable(text: str | None) -> str:
    """Known text to prefill an input with; "" when unknown or holding control characters.

    An input shows its value raw, so text with control characters never goes
    in one: such a name could not be sent anyway, and the operator retypes it.
    """
    if text is None or first_forbidden_char(text) is not None:
        return ""
    return text


def direction_words(settings: ProjectSettings) -> str:
    """The project's range and direction, in one line of our own words."""
    low, high = format_number(settings.threshold_min), format_number(settings.threshold_max)
    if settings.higher_is_riskier:
        way = "higher score is riskier: challenge below block"
    else:
        way = "lower score is riskier: challenge above block"
    return f"Range {low} to {high} · {way}"


def change_lines(known: DimensionEntry | None, new: DimensionThresholds) -> Content:
    """``field: old -> new`` for name, block and challenge (old "unknown" when unknown)."""
    olds = (known.name, known.block, known.challenge) if known else (None, None, None)
    rows = (("name", new.name), ("block", new.block), ("challenge", new.challenge))
    lines = [
        join(
            f"{label + ':':<11}",
            UNKNOWN if before is None else safe(before),
            " -> ",
            safe(value),
            "  (unchanged)" if before == value else "",
        )
        for (label, value), before in zip(rows, olds, strict=True)
    ]
    return Content("\n").join(lines)


class ThresholdEditor(ModalScreen[PlannedChange[ThresholdUpdate] | None]):
    """Edit one dimension; closes with the confirmed plan, or None.

    Args:
        account: The account id.
        project: The project id.
        dimension_id: The dimension to set.
        known: What the inventory knows of it (None: nothing).
        settings: The project's range and direction.
        draft: Values confirmed earlier whose sending failed: the fields
            start with them instead of the known ones.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close without sending", id="thresholds.editor.cancel"),
        # Inputs post Submitted and buttons press themselves; a focused slider lands here.
        Binding("enter", "submit", "Review and send", id="thresholds.editor.submit"),
        DIALOG_HELP,
    ]

    def __init__(
        self,
        account: str,
        project: str,
        dimension_id: str,
        known: DimensionEntry | None,
        settings: ProjectSettings,
        *,
        draft: DimensionThresholds | None = None,
    ) -> None:
        super().__init__()
        self.draft = draft
        self.account = account
        self.project = project
        self.dimension_id = dimension_id
        self.known = known
        self.settings = settings
        #: What the fields held when opened: Escape asks only when one differs.
        self._opened: dict[str, str] = {}

    @property
    def services(self) -> TuiServices:
        """What this dialog uses of the app: session, reports, confirmation."""
        return services_of(self)

    def _target(self) -> Content:
        """``Dimension <id> in <account> / <project>``, every part shown as plain text."""
        where = join(safe_id(self.account), " / ", safe_id(self.project))
        return join("Dimension ", safe_id(self.dimension_id), " in ", where)

    def compose(self) -> ComposeResult:
        low, high = self.settings.threshold_min, self.settings.threshold_max
        with Vertical(id="editor-box"):
            yield Label(Content("Edit dimension thresholds"), classes="dialog-title")
            yield Static(self._target(), id="editor-target")
            with Horizontal(classes="thresholds-form-row"):
                yield Label(Content("Name"), classes="threshold-label")
                yield PlainInput(
                    value=self._start("name"),
                    id="name",
                    placeholder=self._name_placeholder(),
                )
            yield Static("", classes="field-error", id="name-error")
            yield ThresholdField(
                "Block",
                "block threshold",
                self._start("block"),
                minimum=low,
                maximum=high,
                id="block",
            )
            yield ThresholdField(
                "Challenge",
                "challenge threshold",
                self._start("challenge"),
                minimum=low,
                maximum=high,
                id="challenge",
            )
            yield Static(Content(direction_words(self.settings)), classes="hint", id="editor-range")
            if self.draft is not None:
                yield Static(
                    Content("Filled with the values whose sending failed last time."),
                    classes="hint",
                    id="editor-draft",
                )
            yield Static("", id="editor-warning")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(REVIEW, id="submit", variant="primary")

    def _start(self, name: str) -> str:
        source = self.draft if self.draft is not None else self.known
        return editable(getattr(source, name)) if source is not None else ""

    def _name_placeholder(self) -> str:
        if self.known and self.known.name and not editable(self.known.name):
            return "the known name holds control characters: type it again"
        return "required by the service"

    def on_mount(self) -> None:
        self._opened = self._values()
        self._check()
        if self.query_one("#name", Input).value.strip():
            self.query_one("#block", ThresholdField).slider.focus()
        else:
            self.query_one("#name", Input).focus()

    # -- validation ----------------------------------------------------------------

    def _name_error(self) -> str | None:
        try:
            dimension_name(self.query_one("#name", Input).value)
        except ValidationError as exc:
            return exc.message
        return None

    def _check(self) -> bool:
        """Update error and warning lines and the submit button; True when valid."""
        error = self._name_error()
        name_error = self.query_one("#name-error", Static)
        name_error.update(join("Name: ", safe(error)) if error else "")
        name_error.display = error is not None
        block = self.query_one("#block", ThresholdField)
        challenge = self.query_one("#challenge", ThresholdField)
        valid = error is None and block.valid and challenge.valid
        warning = self.query_one("#editor-warning", Static)
        if block.literal and challenge.literal and self._never_reached(block, challenge):
            warning.update(Content("Warning: " + warning_words(self.settings)))
            warning.display = True
        else:
            warning.update("")
            warning.display = False
        submit = self.query_one("#submit", Button)
        submit.disabled = not valid
        # Said in words too: a disabled button looks alike under NO_COLOR.
        submit.label = Content(REVIEW if valid else FIX_FIRST)
        return valid

    def _never_reached(self, block: ThresholdField, challenge: ThresholdField) -> bool:
        assert block.literal is not None and challenge.literal is not None
        return never_reached(block.literal, challenge.literal, self.settings.higher_is_riskier)

    @on(Input.Changed, "#name")
    @on(ThresholdField.Changed)
    def _changed(self) -> None:
        self._check()

    # -- review and confirm ---------------------------------------------------------------

    def thresholds(self) -> DimensionThresholds:
        """The body to send: the name and the thresholds exactly as typed."""
        return build_thresholds(
            self.query_one("#name", Input).value,
            self.query_one("#block", ThresholdField).text,
            self.query_one("#challenge", ThresholdField).text,
        )

    @on(Input.Submitted)
    @on(Button.Pressed, "#submit")
    def action_submit(self) -> None:
        """Review old -> new and ask for confirmation (Enter in a field too)."""
        if not self._check():
            self._focus_first_invalid()
            return
        try:
            new = self.thresholds()
        except ValidationError as exc:
            self.services.report(exc)
            return
        block = self.query_one("#block", ThresholdField)
        challenge = self.query_one("#challenge", ThresholdField)
        warn = self._never_reached(block, challenge)
        body = join(self._target(), "\n\n", change_lines(self.known, new))
        if warn:
            body = join(
                body,
                "\n\nWarning: ",
                warning_words(self.settings),
                "\nSet these thresholds anyway?",
            )
        session = self.services.session
        account, project, dimension_id = self.account, self.project, self.dimension_id

        # Planned once here: the dialog, the dry run and the request the
        # Thresholds screen sends are this plan's.
        self.services.plan_and_confirm(
            self,
            lambda: planning.plan_thresholds(session, account, project, dimension_id, new),
            lambda plan: ChangePrompt.of(
                plan,
                body,
                title="Challenge never reached: set anyway?" if warn else None,
                confirm_label="Set anyway" if warn else None,
            ),
            self._confirmed,
            operation=f"Set thresholds of {dimension_id}",
        )

    def _confirmed(self, plan: PlannedChange[ThresholdUpdate]) -> None:
        self.dismiss(plan)

    def _focus_first_invalid(self) -> None:
        if self._name_error() is not None:
            self.query_one("#name", Input).focus()
            return
        for field_id in ("#block", "#challenge"):
            field = self.query_one(field_id, ThresholdField)
            if not field.valid:
                field.input.focus()
                return

    # -- closing -------------------------------------------------------------------------

    def _values(self) -> dict[str, str]:
        """What each field holds now, by field: ``name``, ``block``, ``challenge``."""
        return {
            "name": self.query_one("#name", Input).value,
            "block": self.query_one("#block", ThresholdField).text,
            "challenge": self.query_one("#challenge", ThresholdField).text,
        }

    def edited(self) -> list[str]:
        """The fields whose text differs from when the editor opened, in order."""
        now = self._values()
        return [name for name, text in now.items() if text != self._opened.get(name, text)]

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close, nothing sent; with edits, ask first (Keep editing focused)."""
        edited = self.edited()
        if not edited:
            self.dismiss(None)
            return
        from bottui.tui.screens.discard_dialog import DiscardDialog

        now = self._values()
        lines = [
            f"{name}: {self._opened[name] or '(empty)'} -> {now[name] or '(empty)'}"
            for name in edited
        ]

        def decided(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(DiscardDialog(edited, lines), decided)
