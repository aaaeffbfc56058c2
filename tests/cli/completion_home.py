"""A home for the completion tests: profiles, an inventory with hostile ids, a ``bottui`` on PATH.

The hostile ids are what a server or an imported file could hand bottui:
command substitutions, backticks, ``;``, spaces, quotes, globs, a newline.
Each tries to create a file in the current directory when a shell expands
it; :data:`TRAPS` are the files to look for afterwards.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Final

from bottui.ops.profiles import new_profile
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory

ROOT: Final = Path(__file__).resolve().parents[2]

#: Ids a shell would run something for; none may ever be offered.
HOSTILE: Final = (
    "$(touch x)",
    "`touch y`",
    "a;touch z",
    "two words",
    "q'uote",
    'd"quote',
    "glob*",
    "back\\slash",
    "colon:id",
    "-looks-like-an-option",
)
#: Stored behind the store's back (it refuses control characters): a newline and an escape.
RAW_HOSTILE: Final = ("nl\n$(touch x)", "esc\x1b]0;title\x07")
#: Files a hostile id would create if anything ran it.
TRAPS: Final = ("x", "y", "z")


def seed(locations: Locations) -> None:
    """Profiles ``prod`` (current, acme/shop) and ``staging``; ``prod``'s inventory."""
    config = ConfigStore(locations)
    config.add_profile(
        new_profile("prod", "https://api.example.com", account="acme", project="shop")
    )
    config.add_profile(new_profile("staging", "https://staging.example.com"))
    config.add_profile(new_profile("evil$(touch x)", "https://evil.example.com"))
    config.use("prod")
    with Inventory.at(locations, "prod") as inv:
        inv.add_account("acme")
        inv.add_account("globex")
        inv.add_project("acme", "blog")
        inv.add_project("globex", "web")
        for limiter in ("rl-login", "rl-api"):
            inv.add_limiter("acme", "shop", limiter)
        inv.add_limiter("acme", "blog", "rl-blog")
        inv.add_dimension("acme", "shop", "dim-score")
        for hostile in HOSTILE:
            inv.add_account(hostile)
            inv.add_project("acme", hostile)
            inv.add_limiter("acme", "shop", hostile)
            inv.add_dimension("acme", "shop", hostile)
    with Inventory.at(locations, "staging") as inv:
        inv.add_limiter("acme", "shop", "rl-staging")
    conn = sqlite3.connect(locations.inventory_file)
    with conn:
        for hostile in RAW_HOSTILE:
            conn.execute(
                "INSERT INTO limiters (profile, account, project, limiter_id, known_at, source) "
                "VALUES ('prod', 'acme', 'shop', ?, '2026-01-01T00:00:00', 'user')",
                (hostile,),
            )
    conn.close()


def bottui_on_path(bin_dir: Path) -> dict[str, str]:
    """An environment whose ``bottui`` runs this checkout (``python -m bottui``)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    shim = bin_dir / "bottui"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m bottui "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT)
    return env


def lying_bottui(bin_dir: Path, lines: list[str]) -> dict[str, str]:
    """An environment whose ``bottui`` answers ``lines`` as is: a callback gone wrong."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    answer = bin_dir / "answer.txt"
    answer.write_text("".join(line + "\n" for line in lines))
    shim = bin_dir / "bottui"
    shim.write_text(f'#!/bin/sh\ncat "{answer}"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    return env


def sprung(directory: Path) -> list[str]:
    """The traps that exist in ``directory`` (none, unless something ran)."""
    return [name for name in TRAPS if (directory / name).exists()]
