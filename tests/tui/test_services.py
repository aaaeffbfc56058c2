"""Screens reach the app through one service object, and errors through one renderer."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from msgspec.structs import replace
from textual.content import Content

from bottui.api.errors import ApiError, BottuiError, ValidationError
from bottui.ops.confirmation import Confirmation, ConfirmKind
from bottui.store.store_errors import ConfigError, StoreError
from bottui.tui.app import BottuiApp
from bottui.tui.change_prompt import ChangePrompt
from bottui.tui.error_report import (
    describe_error,
    error_line,
    error_text,
    error_toast,
    field_words,
)
from bottui.tui.screens.change_form import ConfirmDialog, TypedConfirmDialog
from bottui.tui.screens.dialogs import DryRunDialog
from bottui.tui.services import TuiServices, services_of
from tests.tui.helpers import settle, until

TUI = Path(__file__).resolve().parents[2] / "bottui" / "tui"


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function, typed-only or not."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_screen_or_widget_imports_the_app_even_lazily() -> None:
    modules = [
        *sorted((TUI / "screens").glob("*.py")),
        *sorted((TUI / "widgets").glob("*.py")),
        TUI / "services.py",
        TUI / "error_report.py",
    ]
    offenders = {
        str(path.relative_to(TUI)): sorted(
            name for name in _imported(path) if name.startswith("bottui.tui.app")
        )
        for path in modules
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_no_screen_catches_a_store_error_apart_from_the_renderer() -> None:
    # Caught side by side with BottuiError, the two roots drift apart: every
    # screen catches EXPECTED_ERRORS and renders through bottui.tui.error_report.
    found: list[str] = []
    for path in sorted(TUI.rglob("*.py")):
        if path.name == "error_report.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and node.type is not None:
                names = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                if "StoreError" in names:
                    found.append(f"{path.relative_to(TUI)}:{node.lineno}")
    assert found == []


# -- the renderer ---------------------------------------------------------------------


def test_bottui_and_store_errors_read_the_same() -> None:
    api = ApiError(500, None, body_excerpt="boom\x1b[31m")
    store = ConfigError("Config unreadable", "line 1\nline 2\x07")
    assert describe_error(store) == ("Config unreadable", "line 1\nline 2\x07")
    toast = error_toast(store)
    assert toast.title == "Config unreadable"
    assert toast.message == "line 1\nline 2\ufffd"  # lines kept, control characters replaced
    assert error_toast(api).message.endswith("(press e for details)")
    assert "\x1b" not in error_toast(api).message
    assert error_text(BottuiError("Title", "")) == "Title"
    assert error_line("Cannot read: ", StoreError("T", "D")).plain == "Cannot read: T. D"
    assert field_words(ValidationError("account id", "is empty")).plain == "is empty"


def test_a_validation_error_with_its_own_title_shows_it_under_the_field() -> None:
    # The ops keep a check's sharper title ("Refused plain http"); a form shows it.
    refused = ValidationError("base URL", "h is not a loopback host", title="Refused plain http")
    assert field_words(refused).plain == "Refused plain http: h is not a loopback host"
    bare = ValidationError("profile name", "", title="A profile name cannot be empty")
    assert field_words(bare).plain == "A profile name cannot be empty"


def test_an_unexpected_error_is_named_never_dumped() -> None:
    title, details = describe_error(KeyError("secret-ish\nline"))
    assert title == "Unexpected error"
    assert details.startswith("KeyError: ") and "Traceback" not in details


# -- the service object ---------------------------------------------------------------


def _prompt(sent: list[str], *, needs: Confirmation | None = None) -> ChangePrompt:
    return ChangePrompt(
        title="Disable?",
        body=Content("body"),
        confirm_label="Disable",
        project_id="shop-prod",
        plan=lambda: [],
        needs=needs,
    )


def decide(app: BottuiApp, prompt: ChangePrompt, done: list[str], word: str) -> None:
    """Ask ``prompt`` in a worker, as an action does; ``word`` is added when it is sent."""

    async def ask() -> None:
        if await app.services.decided(prompt) is not None:
            done.append(word)

    app.run_worker(ask(), exit_on_error=False)


async def test_decided_asks_what_the_change_needs(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        services = services_of(app.screen)
        assert isinstance(services, TuiServices) and services is app.services
        done: list[str] = []

        decide(app, _prompt(done), done, "sent")
        await until(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        app.screen.dismiss(False)
        await settle(pilot)
        assert done == []

        decide(app, _prompt(done, needs=Confirmation(ConfirmKind.TYPED)), done, "x")
        await until(lambda: isinstance(app.screen, TypedConfirmDialog), pilot)
        app.screen.dismiss(True)
        await settle(pilot)
        assert done == ["x"]

        decide(app, _prompt(done, needs=Confirmation(ConfirmKind.NONE)), done, "now")
        await settle(pilot)
        assert done == ["x", "now"]

        refused = Confirmation(ConfirmKind.REFUSED, reason="a playbook holds this project")
        decide(app, _prompt(done, needs=refused), done, "never")
        await settle(pilot)
        assert done == ["x", "now"]
        assert isinstance(services.last_error, BottuiError)
        assert services.last_error.details == "a playbook holds this project"

        services.dry_run = True
        decide(app, _prompt(done), done, "never")
        await until(lambda: isinstance(app.screen, DryRunDialog), pilot)
        await settle(pilot)
        assert done == ["x", "now"]


async def test_the_profile_decides_when_the_change_does_not_say(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        services = app.services
        done: list[str] = []
        services.session.settings = replace(services.session.settings, read_only=True)
        decide(app, _prompt(done), done, "never")
        await settle(pilot)
        assert done == [] and services.last_error is not None
        assert describe_error(services.last_error)[0] == "Read-only profile"
        services.session.settings = replace(
            services.session.settings, read_only=False, protected=True
        )
        decide(app, _prompt(done), done, "typed")
        await until(lambda: isinstance(app.screen, TypedConfirmDialog), pilot)


async def test_working_shows_the_label_while_the_block_runs(
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        with app.services.working("Saving"):
            assert app.services.work_text == "Saving"
            with app.services.working("Reading"):
                assert app.services.work_text == "Reading (+1)"
        assert app.services.work_text == ""


def test_every_tui_module_stays_under_900_lines() -> None:
    # STYLE.md: cut by job, not by length; 600-900 lines that do one thing are fine
    # (the app class reached 510 with the type-ahead guard's hook, #24). Past 900 a
    # module is doing more than one thing.
    long = {
        str(path.relative_to(TUI)): n
        for path in sorted(TUI.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 900
    }
    assert long == {}
