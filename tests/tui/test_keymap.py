"""Bindings can be remapped by id from config.toml's [keymap] table."""

from __future__ import annotations

from pathlib import Path

from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import Config
from bottui.store.files import Locations
from tests.tui.helpers import until


def test_the_keymap_is_read_with_the_config(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    store = ConfigStore(locations)
    assert store.load().keymap == {}
    locations.config_dir.mkdir(parents=True)
    locations.config_file.write_text(
        '[keymap]\n"limiters.toggle" = "t"\n"bad" = 3\n', encoding="utf-8"
    )
    assert store.load().keymap == {"limiters.toggle": "t"}  # a typo is left out, not fatal
    locations.config_file.write_text('keymap = "not a table"\n', encoding="utf-8")
    assert store.load().keymap == {}


def test_an_edit_keeps_the_keymap_table_and_its_comments(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    locations.config_dir.mkdir(parents=True)
    text = '[keymap]\n# my keys\n"limiters.toggle" = "t"\n"bad" = 3\n'
    locations.config_file.write_text(text, encoding="utf-8")
    store = ConfigStore(locations)
    store.set_theme("nord")
    written = locations.config_file.read_text(encoding="utf-8")
    assert text in written and 'theme = "nord"' in written
    assert store.load() == Config(theme="nord", keymap={"limiters.toggle": "t"})


def test_a_keymap_is_written_and_read_back(tmp_path: Path) -> None:
    store = ConfigStore(Locations.under(tmp_path))
    store.save(Config(keymap={"app.journal": "j", "limiters.toggle": "g"}))
    assert store.load().keymap == {"app.journal": "j", "limiters.toggle": "g"}
    store.save(Config(keymap={"app.journal": "f5"}))
    assert store.load().keymap == {"app.journal": "f5"}
    store.save(Config())
    assert "keymap" not in store.path.read_text(encoding="utf-8")


async def test_keymap_applies_to_a_binding(make_snap_app: object) -> None:
    app = make_snap_app(keymap={"app.journal": "j"})  # type: ignore[operator]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("j")
        await until(lambda: app.current_mode == "journal", pilot)


async def test_theme_choice_is_remembered(make_snap_app: object) -> None:
    chosen: list[str] = []

    async def remember(theme: str) -> None:  # awaited in a worker, off the key handler
        chosen.append(theme)

    app = make_snap_app(theme="nord", remember_theme=remember)  # type: ignore[operator]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.theme == "nord"  # the saved theme is applied at start
        app.theme = "gruvbox"
        await pilot.pause()
    assert chosen == ["gruvbox"]


def test_theme_is_saved_in_the_config(tmp_path: Path) -> None:
    from bottui.store.config.config_file import ConfigStore

    store = ConfigStore(Locations.under(tmp_path))
    store.set_theme("gruvbox")
    assert store.load().theme == "gruvbox"


async def test_keymap_mistakes_are_said_at_start(make_snap_app: object) -> None:
    keymap = {"limiters.toogle": "t", "limiters.enable": "f", "app.journal": "j"}
    app = make_snap_app(keymap=keymap)  # type: ignore[operator]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        [toast] = [n for n in app._notifications if n.title.startswith("Keymap")]
        assert toast.title == "Keymap in config.toml: 2 problems"
        assert "unknown binding id 'limiters.toogle' (did you mean 'limiters.toggle'?)" in (
            toast.message
        )
        assert "key 'f' is bound twice in Rate limiters" in toast.message
        assert "bottui config check" in toast.message


async def test_a_good_keymap_says_nothing_and_help_shows_its_keys(make_snap_app: object) -> None:
    app = make_snap_app(keymap={"limiters.add": "n"})  # type: ignore[operator]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not [n for n in app._notifications if n.title.startswith("Keymap")]
        await pilot.press("question_mark")
        await pilot.pause()
        rows = [(r.keys, r.binding_id) for s in app.screen._sections for r in s.rows]
        assert ("n", "limiters.add") in rows and ("a", "limiters.add") not in rows


def test_every_binding_id_of_the_tui_is_known_to_the_keymap_check() -> None:
    """A binding id the registry misses would be called misspelt by `config check`.

    Walks every module of bottui.tui, so a new dialog with its own keys fails
    here until its scope is registered in bottui/tui/key_registry.py.
    """
    import importlib
    import inspect
    import pkgutil

    import bottui.tui
    from bottui.tui.key_registry import binding_ids

    declared: dict[str, str] = {}
    for info in pkgutil.walk_packages(bottui.tui.__path__, "bottui.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            for binding in cls.__dict__.get("BINDINGS", []):
                binding_id = getattr(binding, "id", None)
                if binding_id:
                    declared[binding_id] = f"{cls.__module__}.{cls.__qualname__}"
    known = binding_ids()
    missing = {i: where for i, where in declared.items() if i not in known}
    assert declared and not missing
