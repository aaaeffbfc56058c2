"""Tests of the inventory file: export, import, merge report, malformed files."""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bottui.api.models import DimensionThresholds, LimiterChange, LimiterStateSource, Project
from bottui.plaintext import has_control
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_toml import FORMAT, dumps, loads, toml_string
from bottui.store.store_errors import StoreFileError

T0 = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
NOW = "2030-01-01T00:00:00.000000Z"

HOSTILE_IDS = [
    'quote"d',
    "back\\slash",
    "dotted.id.with.dots",
    "slash/ed",
    "[[limiters]]",
    "x = 1",
    "ünïcødé ✓ 🚀",
    "'single'",
    "#not-a-comment",
    " spaced ",
    "\u00a0nbsp",
]
HOSTILE_NAMES = [
    "line\nbreak",
    "tab\there",
    "esc\x1b[31mred",
    "bell\x07",
    "c1\x9bcsi",
    "bidi\u202eevil",
    "sep\u2028arator",
    '"""triple"""',
    "''' literal '''",
    "",
    "plain",
]


def ticking_clock(start: datetime = T0) -> Any:
    counter = itertools.count()
    return lambda: start + timedelta(seconds=next(counter))


@pytest.fixture
def locations(tmp_path: Path) -> Locations:
    return Locations.under(tmp_path)


@pytest.fixture
def source(locations: Locations) -> Iterator[Inventory]:
    inv = Inventory.at(locations, "prod", clock=ticking_clock())
    yield inv
    inv.close()


def fill(inv: Inventory) -> None:
    """An inventory with hostile ids and names, every field kind and unknowns."""
    inv.add_account("acc", "Main account")
    inv.add_account("acc-2")
    for index, (limiter_id, name) in enumerate(zip(HOSTILE_IDS, HOSTILE_NAMES, strict=True)):
        inv.add_project("acc", limiter_id, name)
        inv.add_limiter("acc", "p1", limiter_id, name)
        if index % 3 == 0:
            inv.set_limiter_state("acc", "p1", limiter_id, index % 2 == 0)
        inv.add_dimension("acc", "p1", limiter_id, name or None)
        if index % 2 == 0:
            inv.learn_thresholds("acc", "p1", limiter_id, DimensionThresholds(name, "0.50", "1e-3"))
    body = {"name": "Shop", "rateLimits": {"rateLimits": [{"id": "rl", "isActive": False}]}}
    inv.learn_limiter_change(
        "acc-2",
        "p2",
        LimiterChange("rl", False, LimiterStateSource.RESPONSE, Project.from_json(body)),
    )


def data_section(text: str) -> dict[str, Any]:
    parsed = tomllib.loads(text)
    return {k: v for k, v in parsed.items() if k not in ("profile", "exported_at")}


def test_round_trip_without_loss(locations: Locations, source: Inventory, tmp_path: Path) -> None:
    fill(source)
    first = tmp_path / "first.toml"
    exported = source.export_toml(first)
    assert exported == source.snapshot()

    copy = Inventory.at(locations, "copy", clock=ticking_clock(T0 + timedelta(days=9)))
    report = copy.import_toml(first)
    assert report.changed == 0 and report.unchanged == 0
    assert report.added == sum(len(t) for t in exported.to_json().values())
    assert copy.snapshot() == source.snapshot()

    second = tmp_path / "second.toml"
    copy.export_toml(second)
    assert data_section(second.read_text("utf-8")) == data_section(first.read_text("utf-8"))

    again = copy.import_toml(first)
    assert (again.added, again.changed, again.lines) == (0, 0, ())
    assert again.unchanged == report.added


def test_file_is_printable_and_ids_are_never_keys(source: Inventory, tmp_path: Path) -> None:
    fill(source)
    path = tmp_path / "inv.toml"
    source.export_toml(path)
    text = path.read_text("utf-8")
    for line in text.splitlines():
        assert not has_control(line), line
    parsed = tomllib.loads(text)
    assert set(parsed) == {
        "format",
        "version",
        "profile",
        "exported_at",
        "accounts",
        "projects",
        "limiters",
        "dimensions",
    }
    ids = {r["id"] for r in parsed["limiters"]}
    assert set(HOSTILE_IDS) <= ids
    names = {r.get("name") for r in parsed["limiters"]}
    assert {n for n in HOSTILE_NAMES[: len(HOSTILE_IDS)] if n} <= names


def test_export_replaces_the_file_atomically(source: Inventory, tmp_path: Path) -> None:
    path = tmp_path / "inv.toml"
    path.write_text("old")
    source.add_project("acc", "p1")
    with pytest.raises(StoreFileError, match="exists"):  # #25: only when asked
        source.export_toml(path)
    assert path.read_text("utf-8") == "old"
    source.export_toml(path, overwrite=True)
    assert tomllib.loads(path.read_text("utf-8"))["format"] == FORMAT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "inv.toml"]


def test_export_to_a_missing_directory_is_a_clear_error(source: Inventory, tmp_path: Path) -> None:
    source.add_project("acc", "p1")
    with pytest.raises(StoreFileError) as caught:
        source.export_toml(tmp_path / "no" / "such" / "dir.toml")
    assert "dir.toml" in caught.value.title


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=60))
def test_any_string_survives_toml(value: str) -> None:
    encoded = toml_string(value)
    assert tomllib.loads(f"v = {encoded}")["v"] == value
    assert not has_control(encoded)


# -- merging --------------------------------------------------------------------------------


def write(tmp_path: Path, body: str, name: str = "in.toml") -> Path:
    path = tmp_path / name
    path.write_text(f'format = "{FORMAT}"\nversion = 1\n' + body, "utf-8")
    return path


def test_merge_reports_what_changed(source: Inventory, tmp_path: Path) -> None:
    source.add_project("acc", "p1", "Shop")
    source.set_limiter_state("acc", "p1", "rl-new", True)  # known 12:00:01
    source.set_limiter_state("acc", "p1", "rl-old", True)  # known 12:00:03
    source.add_limiter("acc", "p1", "rl-untouched", "Keep")
    source.add_dimension("acc", "p1", "dim", "Score")
    path = write(
        tmp_path,
        """
[[accounts]]
account = "acc"
name = "Main"

[[projects]]
account = "acc"
project = "p1"
name = "Web shop"

[[limiters]]
account = "acc"
project = "p1"
id = "rl-new"
is_active = false
known_at = "2025-06-01T13:00:00Z"
source = "response"

[[limiters]]
account = "acc"
project = "p1"
id = "rl-old"
is_active = false
known_at = "2025-06-01T11:00:00+00:00"

[[limiters]]
account = "acc"
project = "p1"
id = "rl-untouched"

[[dimensions]]
account = "acc"
project = "p1"
id = "dim"
block = 0.9
challenge = "0.40"

[[limiters]]
account = "acc-9"
project = "p9"
id = "rl-9"
name = "Elsewhere"
""",
    )
    report = source.import_toml(path)
    assert (report.added, report.changed, report.unchanged) == (3, 4, 2)
    text = "\n".join(report.lines)
    assert 'account "acc": name (none) → "Main"' in text
    assert 'project "acc"/"p1": name "Shop" → "Web shop"' in text
    assert 'rate limiter "rl-new" in "acc"/"p1": active → inactive' in text
    assert 'kept rate limiter "rl-old"' in text
    assert 'dimension "dim" in "acc"/"p1": unknown thresholds → block 0.9, challenge 0.40' in text
    assert 'added account "acc-9" (implied by rate limiter "rl-9"' in text
    assert 'added project "acc-9"/"p9"' in text
    assert report.to_json()["lines"] == list(report.lines)

    limiters = {r.id: r for r in source.limiters("acc", "p1")}
    assert limiters["rl-new"].is_active is False
    assert limiters["rl-new"].known_at == "2025-06-01T13:00:00.000000Z"
    assert limiters["rl-new"].source == "response"
    assert limiters["rl-old"].is_active is True  # the local observation is newer
    assert limiters["rl-untouched"].name == "Keep"
    dimension = source.dimension("acc", "p1", "dim")
    assert dimension is not None
    assert (dimension.name, dimension.block, dimension.challenge) == ("Score", "0.9", "0.40")
    assert dimension.source == "import"
    assert [r.name for r in source.limiters("acc-9", "p9")] == ["Elsewhere"]
    assert source.project("acc", "p1").name == "Web shop"  # type: ignore[union-attr]


def test_import_never_removes(source: Inventory, tmp_path: Path) -> None:
    source.add_limiter("acc", "p1", "only-local")
    report = source.import_toml(write(tmp_path, ""))
    assert (report.added, report.changed, report.unchanged, report.lines) == (0, 0, 0, ())
    assert [r.id for r in source.limiters("acc", "p1")] == ["only-local"]


# -- malformed files ------------------------------------------------------------------------


LIMITER = '\n[[limiters]]\naccount = "a"\nproject = "p"\n'
DIMENSION = '\n[[dimensions]]\naccount = "a"\nproject = "p"\nid = "d"\n'
PROJECT = '\n[[projects]]\naccount = "a"\nproject = "p"\n'


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        (LIMITER + 'id = "x\n', 7, "not valid TOML"),
        (LIMITER, 4, "'id' is missing"),
        (LIMITER + 'id = "ok"\n' + LIMITER + 'id = "x\\u0007"\n', 9, "control character"),
        (LIMITER + 'id = ".."\n', 4, "path segment"),
        (LIMITER + 'id = "x"\nis_actve = true\n', 4, "is_actve"),
        (LIMITER + 'id = "x"\nis_active = "yes"\n', 4, "true or false"),
        (LIMITER + "id = 5\n", 4, "must be a string"),
        (DIMENSION + 'block = "0.5"\n', 4, "both"),
        (DIMENSION + 'block = "nan"\nchallenge = "1"\n', 4, "finite"),
        (PROJECT + 'updated_at = "yesterday"\n', 4, "ISO 8601"),
        (PROJECT + 'source = "Not A Word"\n', 4, "source"),
        (PROJECT + PROJECT, 8, "repeats"),
        ("\nsurprise = 1\n", None, "unknown key 'surprise'"),
        ('\nlimiters = "no"\n', None, "array of tables"),
    ],
)
def test_malformed_files_change_nothing(
    source: Inventory, tmp_path: Path, body: str, line: int | None, words: str
) -> None:
    source.add_limiter("acc", "p1", "rl-1", "Before")
    before = source.snapshot()
    path = write(tmp_path, body)
    with pytest.raises(StoreFileError) as caught:
        source.import_toml(path)
    error = caught.value
    assert words in error.title, error.title
    assert error.line == line
    assert error.path == path
    assert "in.toml" in error.title
    assert "\n" not in error.title
    assert source.snapshot() == before


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("version = 1\n", "not a bottui inventory file"),
        (f'format = "{FORMAT}"\nversion = 2\n', "newer bottui"),
        (f'format = "{FORMAT}"\nversion = "1"\n', "'version'"),
        ('[tool.poetry]\nname = "x"\n', "not a bottui inventory file"),
    ],
)
def test_files_that_are_not_ours(source: Inventory, tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "x.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(StoreFileError, match=words):
        source.import_toml(path)
    assert source.snapshot().to_json()["projects"] == []


def test_unreadable_files(source: Inventory, tmp_path: Path) -> None:
    with pytest.raises(StoreFileError, match=r"Cannot read missing\.toml"):
        source.import_toml(tmp_path / "missing.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(f'format = "{FORMAT}"\nversion = 1\n# \xff\xfe\n'.encode("latin-1"))
    with pytest.raises(StoreFileError) as caught:
        source.import_toml(binary)
    assert caught.value.line == 3 and "UTF-8" in caught.value.title


def test_loads_fills_defaults_and_accepts_toml_datetimes() -> None:
    snapshot = loads(
        f'format = "{FORMAT}"\nversion = 1\n'
        '[[limiters]]\naccount = "a"\nproject = "p"\nid = "r"\nis_active = true\n'
        "known_at = 2025-06-01T14:00:00+02:00\n",
        path=Path("x.toml"),
        now=NOW,
    )
    (limiter,) = snapshot.limiters
    assert (limiter.known_at, limiter.source) == ("2025-06-01T12:00:00.000000Z", "import")
    assert dumps(snapshot, profile="p", exported_at=NOW).count("[[limiters]]") == 1
