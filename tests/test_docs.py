"""The docs cannot drift from the code (#27, #29): generated pages current, examples valid.

- The generated pages of ``docs/reference/`` (``docs/generate.py``: the CLI reference,
  every binding id with its default keys, the ``--json`` shapes, the config keys) and any
  generated part of README.md or a page are what the code declares today.
- Every configuration example (a ```toml block of a config file) of README.md and of
  every page under ``docs/`` passes ``bottui config check``, and every playbook example
  (a block headed ``# playbooks/NAME.toml``) is read by ``bottui playbook list`` as a
  playbook.
- Every binding id the README or a page names in prose exists; the screen keys the TUI
  page names are the key bar's.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from bottui.store.files import Locations
from bottui.tui.key_registry import binding_ids
from bottui.tui.ui_rules import PLAIN_DIGITS
from tests.cli.helpers import cli, write_config

ROOT = Path(__file__).resolve().parents[1]
GENERATE = runpy.run_path(str(ROOT / "docs" / "generate.py"))
#: README.md and every hand-written page of the docs, by path.
TEXTS = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in GENERATE["hand_written"]()
}
#: Every page, the generated ones too.
ALL_TEXT = "\n".join(
    path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
)
TOML_BLOCKS = [b for text in TEXTS.values() for b in re.findall(r"```toml\n(.*?)```", text, re.S)]
PLAYBOOKS = [b for b in TOML_BLOCKS if re.match(r"# playbooks/[\w-]+\.toml\n", b)]
CONFIGS = [b for b in TOML_BLOCKS if b not in PLAYBOOKS]


def test_there_are_examples_and_pages_to_check() -> None:
    assert len(TEXTS) > 10 and CONFIGS and PLAYBOOKS
    assert set(GENERATE["PAGES"]) == {
        "reference/cli.md",
        "reference/keys.md",
        "reference/json.md",
        "reference/config.md",
    }


def test_the_generated_pages_and_parts_are_current() -> None:
    stale = [path.relative_to(ROOT).as_posix() for path in GENERATE["stale"]()]
    assert stale == [], "run: python docs/generate.py"


@pytest.mark.parametrize("example", CONFIGS, ids=lambda b: b.splitlines()[0][:30])
def test_every_config_example_passes_config_check(example: str) -> None:
    write_config(example)
    result = cli("config", "check")
    assert result.code == 0, result.out + result.err


@pytest.mark.parametrize("example", PLAYBOOKS, ids=lambda b: b.splitlines()[0])
def test_every_playbook_example_is_a_playbook(example: str) -> None:
    name = re.match(r"# playbooks/([\w-]+)\.toml", example).group(1)  # type: ignore[union-attr]
    folder = Locations.default().config_file.parent / "playbooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(example, encoding="utf-8")
    result = cli("playbook", "list")
    assert result.code == 0, result.err
    assert name in result.out and "invalid" not in result.out.lower(), result.out


def test_every_binding_id_named_in_the_docs_exists() -> None:
    known = binding_ids()
    prefixes = {i.split(".")[0] for i in known}
    named = set(re.findall(r"`([a-z_]+(?:\.[a-z_]+)+)`", ALL_TEXT))
    ids = {n for n in named if n.split(".")[0] in prefixes and "." in n and "/" not in n}
    ids -= {n for n in ids if n.endswith((".toml", ".py", ".md", ".csv", ".jsonl", ".svg"))}
    assert sorted(ids - set(known)) == []


def test_the_screen_keys_are_the_key_bars() -> None:
    first, last = PLAIN_DIGITS[0], PLAIN_DIGITS[-1]
    assert f"| `{first}`-`{last}` |" in TEXTS["docs/tui.md"]


def test_every_page_is_in_the_site_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md"))
    assert [p for p in pages if f": {p}\n" not in nav] == []
