"""Bindings can be remapped by id from config.toml's [keymap] table."""

from __future__ import annotations

from pathlib import Path

from bottui.store.paths import Locations
from bottui.tui.run import read_keymap


def test_read_keymap(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    assert read_keymap(locations) == {}
    locations.config_dir.mkdir(parents=True)
    locations.config_file.write_text(
        '[keymap]\n"limiters.toggle" = "t"\n"bad" = 3\n', encoding="utf-8"
    )
    assert read_keymap(locations) == {"limiters.toggle": "t"}
    locations.config_file.write_text("[keymap\n", encoding="utf-8")
    assert read_keymap(locations) == {}


async def test_keymap_applies_to_a_binding(make_snap_app: object) -> None:
    app = make_snap_app(keymap={"app.journal": "j"})  # type: ignore[operator]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("j")
        await pilot.pause()
        assert app.current_mode == "journal"


async def test_theme_choice_is_remembered(make_snap_app: object) -> None:
    chosen: list[str] = []
    app = make_snap_app(theme="nord", remember_theme=chosen.append)  # type: ignore[operator]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "nord"  # the saved theme is applied at start
        app.theme = "gruvbox"
        await pilot.pause()
    assert chosen == ["gruvbox"]


def test_theme_is_saved_in_the_config(tmp_path: Path) -> None:
    from bottui.store.config import ConfigStore

    store = ConfigStore(Locations.under(tmp_path))
    store.set_theme("gruvbox")
    assert store.load().theme == "gruvbox"
