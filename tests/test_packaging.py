"""pyproject.toml: what installing bottui next to other packages, and CI, rely on.

Runtime dependencies allow the tested minor series of Textual and Rich (an
exact pin would fight any other package in the same environment); the test
extra pins them exactly (the snapshots are drawn by them) and pins ruff and
mypy (a new release must not turn CI red unasked). ``license = "MIT"`` (an
SPDX expression) needs setuptools 77, and the licence text ships.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def _requirements(lines: list[str]) -> dict[str, Requirement]:
    return {(req := Requirement(line)).name.lower(): req for line in lines}


def _pinned(req: Requirement) -> bool:
    return len(req.specifier) == 1 and next(iter(req.specifier)).operator == "=="


def test_runtime_dependencies_allow_the_tested_series_without_pinning() -> None:
    runtime = _requirements(_pyproject()["project"]["dependencies"])
    tested = _requirements(_pyproject()["project"]["optional-dependencies"]["test"])
    for name in ("textual", "rich"):
        req = runtime[name]
        assert not any(spec.operator in ("==", "===") for spec in req.specifier), req
        exact = Version(next(iter(tested[name].specifier)).version)
        # The tested version is allowed, and so is the next patch release of its series...
        assert req.specifier.contains(exact), (req, exact)
        patch = Version(f"{exact.major}.{exact.minor}.{exact.micro + 1}")
        assert req.specifier.contains(patch), (req, patch)
        # ...but not the next minor release, which nobody has tested.
        assert not req.specifier.contains(Version(f"{exact.major}.{exact.minor + 1}.0")), req


def test_test_extra_pins_what_snapshots_and_checks_depend_on() -> None:
    tested = _requirements(_pyproject()["project"]["optional-dependencies"]["test"])
    for name in ("textual", "rich", "syrupy", "pytest-textual-snapshot", "ruff", "mypy"):
        assert name in tested, name
        assert _pinned(tested[name]), tested[name]


def test_build_backend_floor_understands_an_spdx_license() -> None:
    project = _pyproject()
    (setuptools,) = [
        req
        for req in map(Requirement, project["build-system"]["requires"])
        if req.name == "setuptools"
    ]
    floors = [Version(s.version) for s in setuptools.specifier if s.operator in (">=", "==")]
    assert floors and min(floors) >= Version("77"), setuptools
    assert project["project"]["license"] == "MIT"
    assert project["project"]["license-files"] == ["LICENSE"]


def test_license_file_is_mit_with_the_authors() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 the bottui authors" in text
    assert "Permission is hereby granted, free of charge" in text


def test_team_mode_extras_bring_psycopg_and_pgserver_where_it_has_wheels() -> None:
    extras = _pyproject()["project"]["optional-dependencies"]
    for name in ("team", "demo", "test"):
        found = _requirements(extras[name])
        assert "binary" in found["psycopg"].extras, name
        assert found["psycopg"].specifier.contains("3.2.0"), name
    for name in ("demo", "test"):
        pgserver = _requirements(extras[name])["pgserver"]
        assert pgserver.marker is not None, name
        # wheels for CPython 3.11 and 3.12 only: never asked for on 3.13
        wanted = {
            v: pgserver.marker.evaluate({"python_version": v}) for v in ("3.11", "3.12", "3.13")
        }
        assert wanted == {"3.11": True, "3.12": True, "3.13": False}, name
    assert "pgserver" not in _requirements(extras["team"])
