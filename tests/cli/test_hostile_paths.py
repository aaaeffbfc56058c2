"""Files in odd shapes where bottui keeps its own (#25): a config.toml that is a symlink to
itself, a journal that is one; and an inventory import whose work grows linearly."""

from __future__ import annotations

import cProfile
import pstats
from pathlib import Path

from bottui.api.errors import EXIT_REFUSED
from bottui.store.files import Locations
from tests.cli.helpers import cli


def test_a_config_that_links_to_itself_is_a_clear_error() -> None:
    config = Locations.default().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.symlink_to(config.name)
    for argv in (("profile", "list"), ("profile", "list", "--json"), ("journal",)):
        done = cli(*argv)
        assert done.code == EXIT_REFUSED, (argv, done.err)
        assert "config.toml cannot be read" in done.err
        assert "symbolic links" in done.err


def test_a_journal_that_links_to_itself_never_crashes_a_reader() -> None:
    journal = Locations.default().journal_file
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.symlink_to(journal.name)
    for argv in (("journal",), ("journal", "--json")):
        done = cli(*argv)  # a crash would raise here
        assert done.code in (0, EXIT_REFUSED), done.err


def _inventory(path: Path, limiters: int) -> Path:
    lines = ['format = "bottui-inventory"', "version = 1", ""]
    for n in range(limiters):
        lines += [
            "[[limiters]]",
            f'account = "acc-{n % 7}"',
            f'project = "p{n % 300}"',
            f'id = "rl-{n}"',
            f'name = "Limiter {n}"',
            f"is_active = {'true' if n % 2 else 'false'}",
            "",
        ]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _calls(argv: tuple[str, ...]) -> int:
    """Python function calls made by one in-process CLI run (a count, not a time)."""
    profile = cProfile.Profile()
    profile.enable()
    done = cli(*argv)
    profile.disable()
    assert done.code == 0, done.err
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


def test_inventory_import_is_linear(tmp_path: Path) -> None:
    url = ("--base-url", "http://127.0.0.1:9")
    small = _inventory(tmp_path / "small.toml", 2_000)
    large = _inventory(tmp_path / "large.toml", 8_000)
    cli("inventory", "list", *url)  # imports and opens once, outside the counts
    first = _calls(("inventory", "import", str(small), *url))
    inventory = Locations.default().inventory_file
    for leftover in inventory.parent.glob(inventory.name + "*"):
        leftover.unlink()  # the large file goes into an empty inventory too
    second = _calls(("inventory", "import", str(large), *url))
    assert second < 5 * first, (first, second)  # 4x the records: about 4x the work
