"""Tests of bottui.store.files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from bottui.store.files import Locations, ensure

ROOT = Path(__file__).resolve().parents[2]


def test_under(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    assert locations.config_dir == tmp_path / "config"
    assert locations.data_dir == tmp_path / "data"
    assert locations.state_dir == tmp_path / "state"
    assert locations.config_file == tmp_path / "config" / "config.toml"
    assert locations.inventory_file == tmp_path / "data" / "inventory.sqlite3"
    assert locations.journal_file == tmp_path / "state" / "journal.sqlite3"
    assert list(tmp_path.iterdir()) == []  # nothing created


def test_frozen(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    with pytest.raises(AttributeError):  # immutable: a named tuple
        locations.config_dir = tmp_path  # type: ignore[misc]
    assert locations == Locations.under(tmp_path)
    assert hash(locations) == hash(Locations.under(tmp_path))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG is the Linux layout")
def test_default_honours_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "st"))
    locations = Locations.default()
    assert locations.config_file == tmp_path / "cfg" / "bottui" / "config.toml"
    assert locations.inventory_file == tmp_path / "share" / "bottui" / "inventory.sqlite3"
    assert locations.journal_file == tmp_path / "st" / "bottui" / "journal.sqlite3"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "xdg",
    [
        "absolute",  # each variable names its directory
        "unset",  # none: under HOME
        "relative",  # a relative value counts as unset (the XDG spec)
        "empty",
    ],
)
@pytest.mark.parametrize("home", ["absolute", "relative", "unset"])
def test_default_is_where_platformdirs_puts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, xdg: str, home: str
) -> None:
    # Locations.default() reads the variables itself (platformdirs costs a Tab ~7 ms):
    # where existing users' files are must not move.
    monkeypatch.chdir(tmp_path)
    for name, sub in (("CONFIG", "cfg"), ("DATA", "share"), ("STATE", "st")):
        value = {"absolute": str(tmp_path / sub), "relative": sub, "empty": ""}.get(xdg)
        if value is None:
            monkeypatch.delenv(f"XDG_{name}_HOME", raising=False)
        else:
            monkeypatch.setenv(f"XDG_{name}_HOME", value)
    value = {"absolute": str(tmp_path / "me"), "relative": "me"}.get(home)
    if value is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", value)
    assert Locations.default() == Locations(
        config_dir=Path(platformdirs.user_config_dir("bottui")),
        data_dir=Path(platformdirs.user_data_dir("bottui")),
        state_dir=Path(platformdirs.user_state_dir("bottui")),
    )
    assert list(tmp_path.iterdir()) == []


def test_ensure_creates_private_directories(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        made = ensure(tmp_path / "a" / "b")
    finally:
        os.umask(old)
    assert made == tmp_path / "a" / "b"
    assert made.is_dir()
    assert made.stat().st_mode & 0o777 == 0o700
    assert ensure(made) == made  # idempotent


def test_ensure_leaves_existing_directory_alone(tmp_path: Path) -> None:
    existing = tmp_path / "shared"
    existing.mkdir(mode=0o755)
    existing.chmod(0o755)
    ensure(existing)
    assert existing.stat().st_mode & 0o777 == 0o755


def test_import_creates_nothing(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "c"),
        "XDG_DATA_HOME": str(tmp_path / "d"),
        "XDG_STATE_HOME": str(tmp_path / "s"),
    }
    code = "import bottui.store.files as p; p.Locations.default()"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
    assert list(tmp_path.iterdir()) == []
