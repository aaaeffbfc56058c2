"""The inventory edits both faces share (``bottui.ops.inventory_edits``), on a real SQLite file.

Each op is awaited on a session whose inventory is a file in ``tmp_path``;
what it wrote is read back with the store's synchronous class. A refused
value is the one :class:`ValidationError` (exit 2, the field named) and
leaves the file as it was.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bottui.api.errors import EXIT_REFUSED, ValidationError
from bottui.ops import inventory_edits
from bottui.ops.session import Session, Settings
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.keyring_tokens import TokenStore
from tests.fixtures.stores import inventory_of

ACC, PROJ = "acme", "shop"


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[Session]:
    made = Session(
        Locations.under(tmp_path),
        Settings(profile_name="work", base_url="https://api.example.com"),
        TokenStore(environ={}),
    )
    yield made
    await made.aclose()


def stored(session: Session) -> Inventory:
    return inventory_of(session)


async def test_a_project_is_added_renamed_and_forgotten(session: Session) -> None:
    await inventory_edits.add_project(session, ACC, PROJ, "  Shop  ")
    with stored(session) as inventory:
        entry = inventory.project(ACC, PROJ)
        assert entry is not None and entry.name == "Shop"  # trimmed
    await inventory_edits.rename_project(session, ACC, PROJ, "Shop EU")
    with stored(session) as inventory:
        entry = inventory.project(ACC, PROJ)
        assert entry is not None and entry.name == "Shop EU"
    await inventory_edits.rename_project(session, ACC, PROJ, "   ")  # blank: no name
    with stored(session) as inventory:
        entry = inventory.project(ACC, PROJ)
        assert entry is not None and entry.name is None
    await inventory_edits.add_limiter(session, ACC, PROJ, "rl-login", None)
    await inventory_edits.forget_project(session, ACC, PROJ)
    with stored(session) as inventory:
        assert inventory.project(ACC, PROJ) is None
        assert inventory.limiters(ACC, PROJ) == []  # its limiters went with it


@pytest.mark.parametrize(
    ("account", "project", "name", "field", "words"),
    [
        (ACC, "..", None, "project id", "'..' cannot be a path segment"),
        ("", PROJ, None, "account id", "must not be empty"),
        (ACC, "a\x1b[2Jb", None, "project id", "control character"),
        (ACC, PROJ, "evil\x1b]0;x\x07", "display name", "control character"),
        (ACC, PROJ, "n" * (inventory_edits.NAME_MAX + 1), "display name", "longer than 200"),
    ],
)
async def test_a_project_the_rules_refuse_is_not_written(
    session: Session, account: str, project: str, name: str | None, field: str, words: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        await inventory_edits.add_project(session, account, project, name)
    error = caught.value
    assert (error.field, error.exit_code) == (field, EXIT_REFUSED)
    assert words in error.message
    with stored(session) as inventory:
        assert inventory.projects() == []


async def test_a_rename_the_rules_refuse_keeps_the_old_name(session: Session) -> None:
    await inventory_edits.add_project(session, ACC, PROJ, "Shop")
    with pytest.raises(ValidationError, match="display name"):
        await inventory_edits.rename_project(session, ACC, PROJ, "a\tb")
    with stored(session) as inventory:
        entry = inventory.project(ACC, PROJ)
        assert entry is not None and entry.name == "Shop"


async def test_a_limiter_is_added_and_forgotten(session: Session) -> None:
    await inventory_edits.add_project(session, ACC, PROJ, None)
    await inventory_edits.add_limiter(session, ACC, PROJ, "rl-login", "Login")
    await inventory_edits.add_limiter(session, ACC, PROJ, "rl-api", "")  # empty: no name
    with stored(session) as inventory:
        names = {entry.id: entry.name for entry in inventory.limiters(ACC, PROJ)}
    assert names == {"rl-api": None, "rl-login": "Login"}
    await inventory_edits.forget_limiter(session, ACC, PROJ, "rl-login")
    with stored(session) as inventory:
        assert [entry.id for entry in inventory.limiters(ACC, PROJ)] == ["rl-api"]


@pytest.mark.parametrize(
    ("limiter_id", "name", "field", "words"),
    [
        (".", None, "rate limiter id", "'.' cannot be a path segment"),
        ("rl\x00", None, "rate limiter id", "control character"),
        ("rl-ok", "bad\x1bname", "name", "control character (U+001B)"),
    ],
)
async def test_a_limiter_the_rules_refuse_is_not_written(
    session: Session, limiter_id: str, name: str | None, field: str, words: str
) -> None:
    await inventory_edits.add_project(session, ACC, PROJ, None)
    with pytest.raises(ValidationError) as caught:
        await inventory_edits.add_limiter(session, ACC, PROJ, limiter_id, name)
    assert caught.value.field == field and words in caught.value.message
    with stored(session) as inventory:
        assert inventory.limiters(ACC, PROJ) == []


async def test_a_dimension_is_added_and_forgotten(session: Session) -> None:
    await inventory_edits.add_project(session, ACC, PROJ, None)
    entry = await inventory_edits.add_dimension(session, ACC, PROJ, "bot-score", "Bot score")
    assert entry is not None and (entry.id, entry.name) == ("bot-score", "Bot score")
    assert entry.block is None and entry.challenge is None  # thresholds not known yet
    await inventory_edits.forget_dimension(session, ACC, PROJ, "bot-score")
    with stored(session) as inventory:
        assert inventory.dimensions(ACC, PROJ) == []


@pytest.mark.parametrize(
    ("dimension_id", "name", "field"),
    [("..", "Bot score", "dimension id"), ("bot-score", "  ", "name"), ("d", "x\x7f", "name")],
)
async def test_a_dimension_the_rules_refuse_is_not_written(
    session: Session, dimension_id: str, name: str, field: str
) -> None:
    await inventory_edits.add_project(session, ACC, PROJ, None)
    with pytest.raises(ValidationError) as caught:
        await inventory_edits.add_dimension(session, ACC, PROJ, dimension_id, name)
    assert caught.value.field == field
    with stored(session) as inventory:
        assert inventory.dimensions(ACC, PROJ) == []


async def test_an_inventory_file_is_imported(session: Session, tmp_path: Path) -> None:
    source = tmp_path / "team.toml"
    source.write_text(
        'format = "bottui-inventory"\nversion = 1\n\n'
        '[[projects]]\naccount = "acme"\nproject = "shop"\nname = "Shop"\n\n'
        '[[limiters]]\naccount = "acme"\nproject = "shop"\nid = "rl-login"\n',
        encoding="utf-8",
    )
    report = await inventory_edits.import_file(session, source)
    assert report.added >= 2
    with stored(session) as inventory:
        entry = inventory.project(ACC, PROJ)
        assert entry is not None and entry.name == "Shop"
        assert [limiter.id for limiter in inventory.limiters(ACC, PROJ)] == ["rl-login"]
