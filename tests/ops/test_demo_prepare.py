"""The demo's preparation: what it builds in memory is what its files say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bottui.demo import DEMO_PROFILE, demo_snapshot, inventory_toml, prepare
from bottui.ops.session import Settings
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_records import InventorySnapshot, Source
from bottui.store.inventory.inventory_toml import loads
from tests.fixtures.stores import inventory_of

BASE = "http://127.0.0.1:8765"
TIMES = ("known_at", "updated_at")


def test_the_session_starts_from_the_config_file_it_wrote(tmp_path: Path) -> None:
    session = prepare(tmp_path, BASE, project="docs-site")
    config = ConfigStore(Locations.under(tmp_path)).load()
    assert Settings.resolve(config, environ={}) == session.settings
    assert session.settings.profile_name == DEMO_PROFILE
    assert (session.settings.base_url, session.settings.project) == (BASE, "docs-site")


@pytest.mark.parametrize("hostile", [False, True])
def test_the_team_file_holds_the_seeded_records(hostile: bool) -> None:
    now = "2026-11-21T03:00:00Z"
    text = inventory_toml(hostile=hostile)
    assert loads(text, path=Path("demo.toml"), now=now) == demo_snapshot(now, hostile=hostile)


@pytest.mark.parametrize("hostile", [False, True])
def test_the_inventory_is_seeded_as_an_import_of_the_team_file(
    tmp_path: Path, hostile: bool
) -> None:
    session = prepare(tmp_path / "demo", BASE, hostile=hostile)
    inventory = inventory_of(session)
    assert inventory is not None
    seeded = inventory.snapshot()
    sources = {p.source for p in seeded.projects} | {r.source for r in seeded.limiters}
    assert sources == {Source.IMPORT}
    # The same records as importing the file into an empty inventory.
    file = tmp_path / "team.toml"
    file.write_text(inventory_toml(hostile=hostile), encoding="utf-8")
    with Inventory.at(Locations.under(tmp_path / "other"), DEMO_PROFILE) as other:
        other.import_toml(file)
        assert _without_times(seeded) == _without_times(other.snapshot())
    assert len(seeded.limiters) >= 4


def _without_times(snapshot: InventorySnapshot) -> list[dict[str, Any]]:
    tables = (snapshot.accounts, snapshot.projects, snapshot.limiters, snapshot.dimensions)
    return [
        {k: v for k, v in r.to_json().items() if k not in TIMES} for rows in tables for r in rows
    ]
