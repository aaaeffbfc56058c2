"""The local inventory's side of the shared inventory (#13): records a teammate taught.

``apply_shared`` writes whole records with the server's time and the source
``team:<operator>``, and removals; an export keeps the word ``team`` (a file's
source is a word: the teammate's name, untrusted text, stays out of it), and
the file imports again.
"""

from __future__ import annotations

from pathlib import Path

from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_records import (
    AccountEntry,
    InventorySnapshot,
    LimiterEntry,
    ProjectEntry,
    taught_by,
    team_source,
)

AT = "2026-11-21T03:12:00.000000Z"
WHO = "bob'; [b]x[/b]\x1b"


def taught() -> InventorySnapshot:
    return InventorySnapshot(
        accounts=(AccountEntry("acme", None, AT, team_source(WHO)),),
        projects=(ProjectEntry("acme", "shop", "Shop", AT, team_source(WHO)),),
        limiters=(LimiterEntry("acme", "shop", "rl", None, False, AT, team_source(WHO)),),
    )


def test_apply_shared_writes_and_removes(tmp_path: Path) -> None:
    inventory = Inventory(tmp_path / "inv.sqlite3", "mine")
    inventory.add_account("acme", "Acme")
    inventory.apply_shared(taught(), [])
    found = inventory.limiter("acme", "shop", "rl")
    assert found is not None and found.is_active is False and found.known_at == AT
    assert taught_by(found.source) == WHO
    account = inventory.snapshot().accounts[0]
    assert account.name == "Acme"  # an account is only ensured: its name is local
    inventory.apply_shared(InventorySnapshot(), [("limiter", "acme", "shop", "rl")])
    assert inventory.limiter("acme", "shop", "rl") is None
    inventory.apply_shared(InventorySnapshot(), [("project", "acme", "shop", "")])
    assert inventory.project("acme", "shop") is None


def test_an_export_keeps_the_word_team_and_imports_again(tmp_path: Path) -> None:
    inventory = Inventory(tmp_path / "inv.sqlite3", "mine")
    inventory.apply_shared(taught(), [])
    path = tmp_path / "out.toml"
    inventory.export_toml(path)
    text = path.read_text(encoding="utf-8")
    assert 'source = "team"' in text and "bob" not in text
    other = Inventory(tmp_path / "inv.sqlite3", "other")
    report = other.import_toml(path)
    assert report.added >= 1
    back = other.limiter("acme", "shop", "rl")
    assert back is not None and back.source == "team"
