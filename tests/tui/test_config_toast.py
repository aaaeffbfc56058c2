"""The TUI says the config files' problems in a toast after its first frame (#16 item 5)."""

from __future__ import annotations

from typing import Any


async def test_config_problems_are_said_at_start(make_snap_app: Any) -> None:
    app = make_snap_app()
    path = app.session.locations.config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        'current = "nosuch"\n[profiles.p]\nbase_url = "https://a.example"\nprotect = true\n'
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        [toast] = [n for n in app._notifications if n.title.startswith("Config files")]
        assert toast.title == "Config files: 2 problems"
        said = toast.message
        assert "- config.toml:1: current = 'nosuch' names no profile: it is ignored" in said
        assert "- config.toml:4: unknown key profiles.p.protect (did you mean 'protected'?)" in (
            toast.message
        )
        assert "bottui config check" in toast.message


async def test_no_config_file_says_nothing(make_snap_app: Any) -> None:
    app = make_snap_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not [n for n in app._notifications if n.title.startswith("Config files")]
