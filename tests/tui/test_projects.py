"""The Projects screen: snapshots (in-process sandbox) and Pilot flows.

Flows run against the loopback sandbox (``flow_app``) or, for the first run,
against a session with nothing configured. Token values are checked to
appear nowhere: not in a widget, not in the exported screen.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from keyring.backends import fail
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, Static

from bottui.api.tokens import ProjectToken
from bottui.ops import inventory_edits
from bottui.ops.session import Session, Settings
from bottui.ops.token_slots import Slot, read_states
from bottui.sandbox.demo_data import (
    DEMO_ACCOUNT,
    DEMO_PROJECT_TOKENS,
    HOSTILE_MARKUP,
    HOSTILE_PROJECT_ID,
)
from bottui.sandbox.server import SandboxServer
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations
from bottui.store.keyring_tokens import TokenState, TokenStore
from bottui.store.store_errors import KeyringUnavailable
from bottui.tui.app import BottuiApp
from bottui.tui.screens import projects as projects_screen
from bottui.tui.screens.change_form import ConfirmDialog
from bottui.tui.screens.dialogs import HelpDialog
from bottui.tui.screens.profile_switcher import ProfileForm
from bottui.tui.screens.project_dialogs import ProjectForm, TokenDialog
from bottui.tui.screens.projects import KeyringNotice, ProjectsScreen, ProjectTable, Welcome
from bottui.tui.services import START_DEMO
from bottui.tui.ui_rules import ContextBar
from bottui.tui.widgets.untrusted_text import SecretInput
from tests.fixtures.keyrings import BlockingKeyring, InMemoryKeyring, installed
from tests.fixtures.stores import inventory_of
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import keys_closing, plain, settle, until

SMALL = (80, 24)
Snap = Callable[..., bool]
MakeApp = Callable[..., BottuiApp]
NEW_TOKEN = "prj_n3w_7e57"


@pytest.fixture
def flow_app(flow_session: Session) -> BottuiApp:
    """The app against the loopback sandbox, opening on the Projects screen."""
    return BottuiApp(flow_session, demo=True, start_mode="projects")


def screen_text(app: BottuiApp) -> str:
    """Everything the terminal shows, as text (from the SVG export)."""
    svg = app.export_screenshot()
    parts = re.findall(r"<text [^>]*>(.*?)</text>", svg)
    return html.unescape("".join(parts)).replace("\xa0", " ")


def table(app: BottuiApp) -> ProjectTable:
    return app.screen.query_one(ProjectTable)


def row_cells(app: BottuiApp, account: str, project: str) -> list[str]:
    grid = table(app)
    for index in range(grid.row_count):
        cells = [cell.plain for cell in grid.get_row_at(index)]
        if cells[1] == account and cells[2] == project:
            return cells
    raise AssertionError(f"no row {account}/{project}")


async def highlight(pilot: Pilot[Any], project: str) -> None:
    grid = table(pilot.app)  # type: ignore[arg-type]
    for index in range(grid.row_count):
        if grid.get_row_at(index)[2].plain == project:
            grid.move_cursor(row=index, animate=False)
            await pilot.pause()
            return
    raise AssertionError(project)


async def open_projects(pilot: Pilot[Any]) -> None:
    """Wait for the Projects screen (the app opens on it) and its token states."""
    await settle(pilot)
    assert isinstance(pilot.app.screen, ProjectsScreen)


async def fill(pilot: Pilot[Any], selector: str, text: str) -> None:
    """Put ``text`` in an input at once (typing costs ~90 ms a key under Pilot)."""
    pilot.app.screen.query_one(selector, Input).value = text
    await pilot.pause()


def context(app: BottuiApp) -> str:
    return app.screen.query_one(ContextBar).where


def no_keyring() -> Any:
    """keyring's own "no backend found" backend."""
    return fail.Keyring()  # type: ignore[no-untyped-call]


def first_run_session(root: Path, **token_options: Any) -> Session:
    options = {"environ": {}, **token_options}
    return Session(
        Locations.under(root), Settings(profile_name=None, base_url=None), TokenStore(**options)
    )


# -- snapshots -------------------------------------------------------------------


async def _open(pilot: Pilot[Any]) -> None:
    await settle(pilot)


def test_snapshot_first_run(snap_compare: Snap, tmp_path: Path) -> None:
    app = BottuiApp(first_run_session(tmp_path))
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=_open)


def test_snapshot_first_run_profile_form(snap_compare: Snap, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        await fill(pilot, "#base-url", "http://example.com")
        await pilot.pause()

    app = BottuiApp(first_run_session(tmp_path))
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshot_loaded_small(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="projects")
    assert snap_compare(app, terminal_size=SMALL, run_before=_open)


def test_snapshot_token_dialog_masked(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("t")
        await pilot.pause()
        await pilot.press(*"s3cret")
        await pilot.pause()

    app = make_snap_app(start_mode="projects")
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshot_add_form_invalid(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("full_stop", "full_stop")
        await pilot.pause()

    app = make_snap_app(start_mode="projects")
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshot_no_keyring(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    app = make_snap_app(start_mode="projects")
    app.session.tokens = TokenStore(environ={})  # keyring's own backend: the failing one
    with installed(no_keyring()):
        assert snap_compare(app, terminal_size=SMALL, run_before=_open)


def test_snapshot_hostile(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await highlight(pilot, HOSTILE_PROJECT_ID)

    app = make_snap_app(hostile=True, start_mode="projects")
    assert snap_compare(app, terminal_size=SNAP_SIZE, run_before=run_before)


def test_snapshot_remove_confirmation(snap_compare: Snap, make_snap_app: MakeApp) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()

    app = make_snap_app(start_mode="projects")
    assert snap_compare(app, terminal_size=SMALL, run_before=run_before)


def test_snapshots_hold_no_token() -> None:
    from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, HOSTILE_PROJECT_TOKEN

    folder = Path(__file__).parent / "__snapshots__" / "test_projects"
    files = sorted(folder.glob("*.svg"))
    assert files
    secrets = [DEMO_ACCESS_TOKEN, HOSTILE_PROJECT_TOKEN, *DEMO_PROJECT_TOKENS.values(), "s3cret"]
    for file in files:
        text = file.read_text(encoding="utf-8")
        assert not [s for s in secrets if s in text], file.name


# -- the table -------------------------------------------------------------------


async def test_loaded_rows_states_and_current(flow_app: BottuiApp, sandbox: SandboxServer) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod") == [
            "▶",
            DEMO_ACCOUNT,
            "shop-prod",
            "Shop (production)",
            "stored",
            "stored",
        ]
        assert row_cells(flow_app, DEMO_ACCOUNT, "docs-site")[0] == " "
        assert table(flow_app).has_focus
    # Listing projects and token states sends nothing to the API.
    assert sandbox.stats.requests == 0


async def test_select_project_changes_the_context_bar(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        assert "shop-prod" in context(flow_app)
        await highlight(pilot, "docs-site")
        await pilot.press("enter")
        await settle(pilot)
        assert flow_app.current == (DEMO_ACCOUNT, "docs-site")
        assert context(flow_app).endswith("acme / docs-site (Documentation site)")
        assert row_cells(flow_app, DEMO_ACCOUNT, "docs-site")[0] == "▶"
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[0] == " "
        messages = [n.message for n in flow_app._notifications]
        assert "Current project: acme / docs-site (Documentation site)" in messages
        # Another screen shows the new project too.
        await pilot.press("2")
        await settle(pilot)
        assert "docs-site" in context(flow_app)


def help_text(app: BottuiApp) -> str:
    assert isinstance(app.screen, HelpDialog)
    return " ".join(plain(s) for s in app.screen.query(".help-row").results(Static))


async def test_help_lists_every_key(flow_app: BottuiApp, tmp_path: Path) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = help_text(flow_app)
        for words in (
            "Use project",
            "Add",
            "Edit name",
            "Remove",
            "Project token",
            "Personal token",
            "Check tokens again",
        ):
            assert words in text, words
        own = [row.description for row in flow_app.screen._sections[0].rows]
        assert "Start the demo (first run)" not in own  # only on the first run
        later = [s for s in flow_app.screen._sections if s.title.endswith("not available now")]
        assert [row.binding_id for row in later[0].rows] == ["projects.demo"]
    first = BottuiApp(first_run_session(tmp_path / "first"))
    async with first.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = help_text(first)
        assert "Add" in text and "Start the demo" in text
        own = [row.description for row in first.screen._sections[0].rows]
        assert "Remove" not in own  # nothing to remove yet


def test_every_binding_has_an_id_and_a_description() -> None:
    for binding in [*ProjectsScreen.BINDINGS, *ProjectTable.BINDINGS]:
        assert not isinstance(binding, tuple)
        assert binding.id and binding.id.startswith("projects."), binding
        assert binding.description, binding


# -- add, edit, remove -------------------------------------------------------------


async def test_add_edit_remove_project(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        await pilot.press("a")
        await pilot.pause()
        form = flow_app.screen
        assert isinstance(form, ProjectForm)
        submit = form.query_one("#form-submit", Button)
        assert submit.disabled  # no project id yet
        assert form.query_one("#account", Input).value == DEMO_ACCOUNT
        await pilot.press(*"shop-pr")
        await pilot.pause()
        assert not submit.disabled
        await pilot.press("o", "d")
        assert submit.disabled  # already in the inventory
        assert "in the inventory already" in screen_text(flow_app)
        await fill(pilot, "#project", "shop-pro-eu")
        assert not submit.disabled
        await fill(pilot, "#name", "Shop EU")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(flow_app.screen, ProjectsScreen)
        inventory = inventory_of(flow_app.session)
        assert inventory is not None
        entry = inventory.project(DEMO_ACCOUNT, "shop-pro-eu")
        assert entry is not None and entry.name == "Shop EU"
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-pro-eu")[3:] == [
            "Shop EU",
            "stored",
            "missing",
        ]
        # The cursor is on the new row; the current project did not change.
        highlighted = table(flow_app).selected
        assert highlighted is not None and highlighted.project == "shop-pro-eu"
        assert flow_app.current == (DEMO_ACCOUNT, "shop-prod")

        await pilot.press("r")
        await pilot.pause()
        form = flow_app.screen
        assert isinstance(form, ProjectForm)
        assert form.query_one("#name", Input).value == "Shop EU"
        await fill(pilot, "#name", "Shop Europe")
        await pilot.press("enter")
        await settle(pilot)
        entry = inventory.project(DEMO_ACCOUNT, "shop-pro-eu")
        assert entry is not None and entry.name == "Shop Europe"
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-pro-eu")[3] == "Shop Europe"

        await pilot.press("x")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert dialog.query_one("#cancel", Button).has_focus
        await pilot.press("enter")  # Enter alone cancels
        await settle(pilot)
        assert inventory.project(DEMO_ACCOUNT, "shop-pro-eu") is not None
        await pilot.press("x")
        await pilot.pause()
        await keys_closing(pilot, "tab", "enter")
        assert inventory.project(DEMO_ACCOUNT, "shop-pro-eu") is None
        assert table(flow_app).row_count == 3


async def test_a_read_begun_before_the_add_leaves_the_cursor_for_the_new_row(
    flow_app: BottuiApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read the Projects screen starts as the form closes sees the inventory
    before the add; it ends after the add is saved. Its rows lack the new
    project: the cursor waits for the read that shows it (a CI failure once)."""
    real_read, real_add = projects_screen.read_projects, inventory_edits.add_project
    armed, stale_read, saved = False, asyncio.Event(), asyncio.Event()

    async def read(session: Session, *, whole: bool, shown: Any) -> Any:
        found = await real_read(session, whole=whole, shown=shown)
        if armed and not stale_read.is_set():
            stale_read.set()
            await saved.wait()
        return found

    async def add(session: Session, account: str, project: str, name: str) -> None:
        await stale_read.wait()
        await real_add(session, account, project, name)

    monkeypatch.setattr(projects_screen, "read_projects", read)
    monkeypatch.setattr(inventory_edits, "add_project", add)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        real_changed = flow_app.services.inventory_changed

        def changed() -> None:  # called once the screen has heard of the save
            saved.set()
            real_changed()

        monkeypatch.setattr(flow_app.services, "inventory_changed", changed)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(flow_app.screen, ProjectForm)
        await fill(pilot, "#project", "shop-pro-eu")
        armed = True
        await pilot.press("enter")
        await settle(pilot)
        assert stale_read.is_set() and saved.is_set()
        assert isinstance(flow_app.screen, ProjectsScreen)
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-pro-eu")
        highlighted = table(flow_app).selected
        assert highlighted is not None and highlighted.project == "shop-pro-eu"
        assert flow_app.current == (DEMO_ACCOUNT, "shop-prod")


async def test_removing_the_current_project_leaves_none(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        await highlight(pilot, "shop-prod")
        await pilot.press("x")
        await pilot.pause()
        await pilot.click("#confirm")
        await settle(pilot)
        assert flow_app.current is None
        assert "no project selected" in context(flow_app)


async def test_add_form_refuses_bad_ids(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        await pilot.press("a")
        await pilot.pause()
        form = flow_app.screen
        assert isinstance(form, ProjectForm)
        form.query_one("#project", Input).value = ".."
        await pilot.pause()
        assert form.query_one("#form-submit", Button).disabled
        assert "'..' cannot be a path segment" in screen_text(flow_app)
        await pilot.press("enter")  # Enter on an invalid form writes nothing
        await until(lambda: isinstance(flow_app.screen, ProjectForm), pilot)
        await pilot.press("escape")
        await until(lambda: isinstance(flow_app.screen, ProjectsScreen), pilot)
        assert table(flow_app).row_count == 3


# -- tokens ------------------------------------------------------------------------


async def test_store_token_state_changes_value_never_shown(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        # A project without a token first.
        inventory = inventory_of(flow_app.session)
        assert inventory is not None
        inventory.add_project(DEMO_ACCOUNT, "blog", "Blog")
        flow_app.services.inventory_changed()
        await settle(pilot)
        assert row_cells(flow_app, DEMO_ACCOUNT, "blog")[5] == "missing"
        await highlight(pilot, "blog")
        await pilot.press("t")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, TokenDialog)
        field = dialog.query_one(SecretInput)
        assert field.password and field.has_focus
        await pilot.press(*NEW_TOKEN)
        await pilot.pause()
        shown = screen_text(flow_app)
        assert NEW_TOKEN not in shown
        assert "•" * len(NEW_TOKEN) in shown
        await pilot.press("enter")
        await settle(pilot)
        assert field.value == ""  # cleared
        assert isinstance(flow_app.screen, ProjectsScreen)
        assert row_cells(flow_app, DEMO_ACCOUNT, "blog")[5] == "stored"
        token = flow_app.session.tokens.project(flow_app.session.base_url, DEMO_ACCOUNT, "blog")
        assert token == ProjectToken(NEW_TOKEN)
        text = screen_text(flow_app)
        messages = [str(n.message) for n in flow_app._notifications]
        assert "The project API token of acme / blog is now: stored" in messages
        for secret in (NEW_TOKEN, *DEMO_PROJECT_TOKENS.values()):
            assert secret not in text
            assert all(secret not in message for message in messages)


async def test_delete_tokens_ask_first_personal_is_per_account(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        await highlight(pilot, "docs-site")
        await pilot.press("t")
        await pilot.pause()
        await pilot.click("#token-delete")
        await until(lambda: isinstance(flow_app.screen, ConfirmDialog), pilot)
        await pilot.click("#confirm")
        await settle(pilot)
        assert isinstance(flow_app.screen, ProjectsScreen)
        assert row_cells(flow_app, DEMO_ACCOUNT, "docs-site")[4:] == ["stored", "missing"]
        base = flow_app.session.base_url
        assert flow_app.session.tokens.project(base, DEMO_ACCOUNT, "docs-site") is None
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[5] == "stored"  # others keep theirs
        # The personal access token belongs to the account: every row shows the change.
        await pilot.press("p")
        await until(lambda: isinstance(flow_app.screen, TokenDialog), pilot)
        assert "Personal access token of account acme" in screen_text(flow_app)
        await pilot.click("#token-delete")
        await pilot.pause()
        await pilot.click("#confirm")
        await settle(pilot)
        for project in ("docs-site", "shop-prod", "shop-staging"):
            assert row_cells(flow_app, DEMO_ACCOUNT, project)[4] == "missing"


async def test_a_late_read_does_not_overwrite_a_newer_state(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        screen = flow_app.screen
        assert isinstance(screen, ProjectsScreen)
        slot = Slot.for_project(DEMO_ACCOUNT, "shop-prod")
        version_before = screen._versions[slot]
        await pilot.press("t")
        await pilot.pause()
        await pilot.click("#token-delete")
        await pilot.pause()
        await pilot.click("#confirm")
        await settle(pilot)
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[5] == "missing"
        # A read that began before the deletion answers only now: it is ignored.
        base = flow_app.session.base_url
        screen.post_message(
            ProjectsScreen.TokensRead(base, {slot: TokenState.STORED}, {slot: version_before})
        )
        await settle(pilot)
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[5] == "missing"


async def test_environment_token_shows_from_environment(flow_app: BottuiApp) -> None:
    flow_app.session.tokens = TokenStore(
        environ={"BOTTUI_API_KEY": "prj_from_env_0001"}, backend=InMemoryKeyring()
    )
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        cells = row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")
        # BOTTUI_API_KEY is sent for any project: not said to be this one's (#27 item 7).
        assert cells[4:] == ["missing", "env, not tied"]
        assert "prj_from_env_0001" not in screen_text(flow_app)
        await pilot.press("t")
        await pilot.pause()
        state = plain(flow_app.screen.query_one("#token-state", Static))
        assert state == (
            "Now: from the environment: not tied to a project. BOTTUI_API_KEY is set and wins "
            "over the keyring, for every project: it can be only one's. BOTTUI_API_KEY_<PROFILE> "
            "ties a token to one profile."
        )
        # Nothing stored in the keyring: nothing to delete.
        assert flow_app.screen.query_one("#token-delete", Button).disabled


async def test_no_keyring_says_so_with_remedies(flow_app: BottuiApp) -> None:
    flow_app.session.tokens = TokenStore(environ={})
    with installed(no_keyring()):
        async with flow_app.run_test(size=SNAP_SIZE) as pilot:
            await open_projects(pilot)
            assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[4:] == [
                "unavailable",
                "unavailable",
            ]
            detail = plain(flow_app.screen.query_one("#projects-detail", Static))
            assert "personal token: keyring unavailable (p)" in detail
            notice = flow_app.screen.query_one(KeyringNotice)
            assert notice.display
            text = plain(notice.query_one(Static))
            assert "No keyring backend is available" in text
            assert "BOTTUI_ACCESS_TOKEN" in text and "BOTTUI_API_KEY" in text
            # Storing fails in the dialog, which says so and keeps nothing.
            await pilot.press("t")
            await pilot.pause()
            dialog = flow_app.screen
            assert isinstance(dialog, TokenDialog)
            assert dialog.query_one("#token-problem").display  # remedies at once
            await fill(pilot, "#token-value", NEW_TOKEN)
            await pilot.press("enter")
            await settle(pilot)
            assert flow_app.screen is dialog
            problem = plain(dialog.query_one("#token-problem-text", Static))
            assert problem.startswith("Nothing was stored. No keyring backend is available")
            assert "BOTTUI_API_KEY" in problem
            assert dialog.query_one(SecretInput).value == ""
            assert NEW_TOKEN not in screen_text(flow_app)
            # Once a keyring works, k reads every state anew and the notice goes.
            await pilot.press("escape")
            flow_app.session.tokens = TokenStore(environ={}, backend=InMemoryKeyring())
            await pilot.press("k")
            await settle(pilot)
            assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[4:] == ["missing", "missing"]
            assert not notice.display


async def test_slow_keyring_shows_checking_and_keeps_the_screen_alive(
    flow_app: BottuiApp,
) -> None:
    blocking = BlockingKeyring()
    flow_app.session.tokens = TokenStore(environ={}, timeout=30, backend=blocking)
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await pilot.pause()
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[4:] == ["checking…", "checking…"]
        # The event loop is free: the cursor moves while the keyring hangs.
        await highlight(pilot, "docs-site")
        assert table(flow_app).selected.project == "docs-site"  # type: ignore[union-attr]
        assert "checking…" in plain(flow_app.screen.query_one("#projects-detail", Static))
        blocking.release.set()
        await settle(pilot)
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[4:] == ["missing", "missing"]


async def test_token_dialog_refuses_blanks_and_control_characters(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        await pilot.press("t")
        await pilot.pause()
        dialog = flow_app.screen
        assert isinstance(dialog, TokenDialog)
        store = dialog.query_one("#token-store", Button)
        assert store.disabled
        await pilot.press(*"ab", "space", "c")
        await pilot.pause()
        assert store.disabled
        assert "contains a blank" in screen_text(flow_app)
        await pilot.press("escape")
        await until(lambda: isinstance(flow_app.screen, ProjectsScreen), pilot)
        assert row_cells(flow_app, DEMO_ACCOUNT, "shop-prod")[5] == "stored"


async def test_secret_input_never_copies() -> None:
    field = SecretInput()
    assert field.password
    field.action_copy()  # no clipboard, no error
    field.action_cut()


# -- hostile text --------------------------------------------------------------------


async def test_hostile_names_are_literal(make_snap_app: MakeApp) -> None:
    app = make_snap_app(hostile=True, start_mode="projects")
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        cells = row_cells(app, DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
        assert cells[3] == HOSTILE_MARKUP
        await highlight(pilot, HOSTILE_PROJECT_ID)
        await pilot.press("enter")
        await settle(pilot)
        assert app.current == (DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
        assert app.is_running  # [@click=app.quit] did not quit
        assert HOSTILE_MARKUP in screen_text(app)
        await pilot.press("x")
        await pilot.pause()
        assert HOSTILE_PROJECT_ID in screen_text(app)
        await pilot.press("escape")
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ProjectForm), pilot)
        await pilot.press("escape")
        await until(lambda: isinstance(app.screen, ProjectsScreen), pilot)


# -- first run -------------------------------------------------------------------------


async def test_first_run_creates_profile_then_project(tmp_path: Path) -> None:
    session = first_run_session(tmp_path)
    app = BottuiApp(session)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProjectsScreen)
        assert app.screen.query_one(Welcome).display
        assert not table(app).display
        assert app.screen.query_one("#welcome-add", Button).has_focus
        await pilot.press("enter")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ProfileForm)
        assert form.query_one("#profile", Input).value == "default"
        await fill(pilot, "#profile", "work")
        await fill(pilot, "#base-url", "http://api.example.com")
        assert form.query_one("#form-submit", Button).disabled  # plain http to a remote host
        assert "Refused plain http" in screen_text(app)
        form.query_one("#base-url", Input).value = "https://API.example.com/"
        await pilot.pause()
        form.query_one("#protected", Checkbox).value = True
        await pilot.pause()
        assert "Protected (on)" in str(form.query_one("#protected", Checkbox).label)
        await pilot.click("#form-submit")
        await settle(pilot)
        # The profile is saved and current; the session works under it.
        config = ConfigStore(session.locations).load()
        assert config.current == "work"
        profile = config.profiles["work"]
        assert profile.base_url == "https://api.example.com"
        assert profile.protected
        assert session.settings.base_url == "https://api.example.com"
        assert session.settings.protected
        assert session.inventory_store.profile == "work"  # reopened
        inventory = inventory_of(session)
        assert isinstance(app.screen, ProjectForm)  # straight on to the project
        await fill(pilot, "#account", "acme")
        await fill(pilot, "#project", "shop")
        await fill(pilot, "#name", "Shop")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ProjectsScreen)
        assert not app.screen.query_one(Welcome).display
        assert app.current == ("acme", "shop")  # the first project is current
        bar = context(app)
        assert bar == " work · https://api.example.com · acme / shop (Shop)"
        assert inventory.project("acme", "shop") is not None
        assert "PROTECTED" in app.screen.query_one(ContextBar).render().plain
        assert row_cells(app, "acme", "shop")[4:] == ["missing", "missing"]


async def test_first_run_start_the_demo(tmp_path: Path) -> None:
    app = BottuiApp(first_run_session(tmp_path))
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.click("#welcome-demo")
        await pilot.pause()
    assert app.return_value == START_DEMO


async def test_first_run_demo_key(tmp_path: Path) -> None:
    app = BottuiApp(first_run_session(tmp_path))
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause()
    assert app.return_value == START_DEMO


def test_cli_runs_the_demo_when_the_app_asks(monkeypatch: pytest.MonkeyPatch) -> None:
    import bottui.demo
    import bottui.tui.launch
    from bottui.cli.apps import cmd_tui

    ran: list[bool] = []

    def run_demo() -> int:
        ran.append(True)
        return 0

    monkeypatch.setattr(bottui.tui.launch, "run_app", lambda args: START_DEMO)
    monkeypatch.setattr(bottui.demo, "run_demo", run_demo)
    assert cmd_tui(argparse.Namespace(), None) == 0  # type: ignore[arg-type]
    assert ran == [True]


async def test_demo_key_does_nothing_in_the_demo(flow_app: BottuiApp) -> None:
    async with flow_app.run_test(size=SNAP_SIZE) as pilot:
        await open_projects(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert flow_app.is_running


async def test_profile_with_no_projects_offers_both_ways(tmp_path: Path) -> None:
    session = Session(
        Locations.under(tmp_path),
        Settings(profile_name="work", base_url="https://api.example.com"),
        TokenStore(environ={}),
    )
    app = BottuiApp(session)
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        assert "No projects yet in profile work" in screen_text(app)
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ProjectForm), pilot)  # no profile needed


# -- the ops helper -------------------------------------------------------------------


async def test_read_states_reports_failure_per_slot() -> None:
    slots = [Slot.personal("a"), Slot.for_project("a", "p"), Slot.personal("a")]
    with installed(no_keyring()):
        readings = await read_states(TokenStore(environ={}), "https://x.example", slots)
    assert list(readings) == slots[:2]
    assert all(isinstance(r, KeyringUnavailable) for r in readings.values())
    store = TokenStore(environ={"BOTTUI_ACCESS_TOKEN": "pat_x"}, backend=InMemoryKeyring())
    readings = await read_states(store, "https://x.example", slots)
    assert readings == {
        slots[0]: TokenState.ENVIRONMENT_ANY_ACCOUNT,
        slots[1]: TokenState.MISSING,
    }


def test_slot_wraps_in_the_right_type() -> None:
    assert type(Slot.personal("a").wrap(" x ")).__name__ == "AccessToken"
    assert Slot.for_project("a", "p").wrap("x") == ProjectToken("x")
    with pytest.raises(ValueError):
        Slot("project", "a")
    with pytest.raises(ValueError):
        Slot.personal("a").wrap("   ")
