"""Tests of bottui.store.inventory: what the user enters and what responses teach."""

from __future__ import annotations

import itertools
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bottui.api.errors import ValidationError
from bottui.api.models import DimensionThresholds, LimiterChange, LimiterStateSource, Project
from bottui.api.tokens import ProjectToken
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.inventory.inventory_records import LimiterEntry
from bottui.store.store_errors import NotInInventory, StoreError

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def ticking_clock(start: datetime = T0) -> Any:
    """A clock that moves one second per reading."""
    counter = itertools.count()
    return lambda: start + timedelta(seconds=next(counter))


@pytest.fixture
def inventory(tmp_path: Path) -> Iterator[Inventory]:
    inv = Inventory.at(Locations.under(tmp_path), "prod", clock=ticking_clock())
    yield inv
    inv.close()


def change(limiter_id: str, active: bool, body: object, source: str = "response") -> LimiterChange:
    return LimiterChange(
        limiter_id=limiter_id,
        is_active=active,
        source=LimiterStateSource(source),
        project=Project.from_json(body),
    )


def states(inv: Inventory, account: str = "acc", project: str = "p1") -> dict[str, Any]:
    return {r.id: (r.is_active, r.source) for r in inv.limiters(account, project)}


# -- opening ------------------------------------------------------------------------------


def test_nothing_is_created_until_a_write(tmp_path: Path) -> None:
    inv = Inventory.at(Locations.under(tmp_path), "prod")
    assert inv.accounts() == []
    assert inv.projects() == []
    assert inv.limiters("a", "p") == []
    assert inv.limiter("a", "p", "r") is None
    assert inv.to_dict() == {
        "profile": "prod",
        "accounts": [],
        "projects": [],
        "limiters": [],
        "dimensions": [],
    }
    assert list(tmp_path.iterdir()) == []
    inv.add_project("a", "p")
    assert inv.path.exists()
    assert (inv.path.stat().st_mode & 0o777) == 0o600
    mode = sqlite3.connect(inv.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_profile_must_be_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        Inventory(tmp_path / "i.sqlite3", "")


# -- what the user enters ----------------------------------------------------------------


def test_add_rename_remove(inventory: Inventory) -> None:
    inventory.add_account("acc", "Main")
    inventory.add_project("acc", "p1", "Shop")
    inventory.add_project("acc", "p2")
    inventory.add_limiter("acc", "p1", "rl-1", "Login burst")
    inventory.add_dimension("acc", "p1", "dim-1", "Bot score")

    assert [(a.account, a.name, a.source) for a in inventory.accounts()] == [
        ("acc", "Main", "user")
    ]
    assert [(p.project, p.name) for p in inventory.projects()] == [("p1", "Shop"), ("p2", None)]
    assert [p.project for p in inventory.projects("other")] == []
    limiter = inventory.limiter("acc", "p1", "rl-1")
    assert limiter is not None
    assert (limiter.name, limiter.is_active, limiter.source) == ("Login burst", None, "user")
    assert limiter.previous() is None
    dimension = inventory.dimension("acc", "p1", "dim-1")
    assert dimension is not None
    assert (dimension.name, dimension.block, dimension.challenge) == ("Bot score", None, None)
    assert dimension.previous() is None and dimension.thresholds() is None

    inventory.rename_project("acc", "p1", "Web shop")
    assert inventory.project("acc", "p1").name == "Web shop"  # type: ignore[union-attr]
    inventory.rename_limiter("acc", "p1", "rl-1", None)
    assert inventory.limiter("acc", "p1", "rl-1").name is None  # type: ignore[union-attr]

    # Adding again is harmless; a name given later is recorded.
    inventory.add_limiter("acc", "p1", "rl-1")
    inventory.add_limiter("acc", "p1", "rl-1", "Again")
    assert [r.name for r in inventory.limiters("acc", "p1")] == ["Again"]

    inventory.remove_limiter("acc", "p1", "rl-1")
    assert inventory.limiters("acc", "p1") == []
    inventory.remove_dimension("acc", "p1", "dim-1")
    assert inventory.dimensions("acc", "p1") == []


def test_adding_a_limiter_adds_its_project_and_account(inventory: Inventory) -> None:
    inventory.add_limiter("acc", "p9", "rl")
    assert [a.account for a in inventory.accounts()] == ["acc"]
    assert [(p.account, p.project) for p in inventory.projects()] == [("acc", "p9")]


def test_remove_project_removes_its_limiters_and_dimensions(inventory: Inventory) -> None:
    inventory.add_limiter("acc", "p1", "rl-1")
    inventory.add_dimension("acc", "p1", "d-1", "D")
    inventory.add_limiter("acc", "p2", "rl-2")
    inventory.remove_project("acc", "p1")
    assert [p.project for p in inventory.projects()] == ["p2"]
    assert inventory.limiters("acc", "p1") == []
    assert inventory.dimensions("acc", "p1") == []
    assert [r.id for r in inventory.limiters("acc", "p2")] == ["rl-2"]
    # Adding the project again does not bring the old limiters back.
    inventory.add_project("acc", "p1")
    assert inventory.limiters("acc", "p1") == []


def test_remove_account_removes_everything_below(inventory: Inventory) -> None:
    inventory.add_limiter("acc", "p1", "rl-1")
    inventory.add_dimension("acc", "p1", "d", "D")
    inventory.remove_account("acc")
    assert inventory.snapshot().to_json() == {
        "accounts": [],
        "projects": [],
        "limiters": [],
        "dimensions": [],
    }


def test_missing_records_are_reported(inventory: Inventory) -> None:
    with pytest.raises(NotInInventory):
        inventory.remove_project("acc", "nope")
    inventory.add_project("acc", "p1")
    calls: tuple[Callable[[], object], ...] = (
        lambda: inventory.rename_project("acc", "nope", "x"),
        lambda: inventory.remove_project("acc", "nope"),
        lambda: inventory.remove_limiter("acc", "p1", "nope"),
        lambda: inventory.rename_limiter("acc", "p1", "nope", "x"),
        lambda: inventory.remove_dimension("acc", "p1", "nope"),
        lambda: inventory.remove_account("nope"),
    )
    for call in calls:
        with pytest.raises(NotInInventory) as caught:
            call()
        assert isinstance(caught.value, StoreError) and isinstance(caught.value, LookupError)
        assert "nope" in caught.value.title


@pytest.mark.parametrize("bad", ["", ".", "..", "a\nb", "esc\x1b[31m", "x" * 1025])
def test_user_ids_must_be_path_segments(inventory: Inventory, bad: str) -> None:
    with pytest.raises(ValidationError):
        inventory.add_limiter("acc", "p1", bad)
    with pytest.raises(ValidationError):
        inventory.add_project("acc", bad)
    assert inventory.projects() == []


def test_hostile_but_valid_ids_are_kept_exactly(inventory: Inventory) -> None:
    ids = ['a"b', "a/b", "a.b", "%2F", "ünï/cødé ✓", "'; DROP TABLE limiters; --", " lead"]
    for limiter_id in ids:
        inventory.add_limiter("acc", "p1", limiter_id)
    assert sorted(r.id for r in inventory.limiters("acc", "p1")) == sorted(ids)


def test_tokens_are_refused(inventory: Inventory) -> None:
    token = ProjectToken("canary-token-value")
    with pytest.raises(TypeError):
        inventory.add_project("acc", "p1", token)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        inventory.add_limiter("acc", token, "x")  # type: ignore[arg-type]


def test_profiles_do_not_see_each_other(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    prod, staging = Inventory.at(locations, "prod"), Inventory.at(locations, "staging")
    prod.add_limiter("acc", "p1", "rl-prod")
    staging.add_limiter("acc", "p1", "rl-staging")
    assert [r.id for r in prod.limiters("acc", "p1")] == ["rl-prod"]
    assert [r.id for r in staging.limiters("acc", "p1")] == ["rl-staging"]
    staging.remove_project("acc", "p1")
    assert [r.id for r in prod.limiters("acc", "p1")] == ["rl-prod"]


# -- learning from responses ---------------------------------------------------------------


def test_empty_body_teaches_the_state_sent(inventory: Inventory) -> None:
    inventory.learn_limiter_change("acc", "p1", change("rl-1", False, {}, "request"))
    limiter = inventory.limiter("acc", "p1", "rl-1")
    assert limiter == LimiterEntry(
        "acc", "p1", "rl-1", None, False, "2025-06-01T12:00:00.000000Z", "request"
    )
    assert limiter.previous() == {"isActive": False}
    project = inventory.project("acc", "p1")
    assert project is not None and project.name is None and project.source == "response"


def test_returned_project_teaches_every_listed_limiter(inventory: Inventory) -> None:
    body = {
        "id": "p1",
        "name": "Shop",
        "serverKey": "server-key-secret",
        "rateLimits": {
            "order": ["rl-order-only", "rl-1"],
            "rateLimits": [
                {"id": "rl-1", "isActive": True, "name": "Login burst"},
                {"rateLimiterId": "rl-2", "enabled": False},
                {"rate_limiter_id": 42},
                "rl-plain-string",
                {"uuid": "rl-3", "active": True, "title": "Titled"},
                {"isActive": True},  # no id: skipped
                None,
                ["nested"],
                {"id": ".."},  # cannot be a path segment: skipped
                {"id": "bad\u0007bell"},
                {"id": ""},
                {"id": True},
            ],
        },
    }
    inventory.learn_limiter_change("acc", "p1", change("rl-2", True, body))
    assert states(inventory) == {
        "rl-1": (True, "response"),
        "rl-2": (True, "response"),  # the change itself wins over the listed state
        "42": (None, "response"),
        "rl-plain-string": (None, "response"),
        "rl-3": (True, "response"),
        "rl-order-only": (None, "response"),
    }
    names = {r.id: r.name for r in inventory.limiters("acc", "p1")}
    assert names["rl-1"] == "Login burst" and names["rl-3"] == "Titled"
    assert inventory.project("acc", "p1").name == "Shop"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "rate_limits",
    [
        None,
        "a string",
        42,
        [],
        [{"id": "rl-x", "isActive": True}],  # a list, not the documented object
        {"order": "not-a-list", "rateLimits": {"id": "rl-x"}},
        {"rateLimits": None},
        {},
    ],
)
def test_odd_rate_limits_shapes_teach_only_the_change(
    inventory: Inventory, rate_limits: object
) -> None:
    inventory.learn_limiter_change(
        "acc", "p1", change("rl-1", True, {"rateLimits": rate_limits}, "request")
    )
    assert states(inventory) == {"rl-1": (True, "request")}


def test_a_listing_without_state_keeps_a_known_state(inventory: Inventory) -> None:
    inventory.learn_limiter_change("acc", "p1", change("rl-1", True, {}, "request"))
    body = {"rateLimits": {"rateLimits": [{"id": "rl-1", "name": "Named now"}]}}
    inventory.learn_limiter_change("acc", "p1", change("rl-2", False, body))
    limiter = inventory.limiter("acc", "p1", "rl-1")
    assert limiter is not None
    assert (limiter.is_active, limiter.source, limiter.name) == (True, "request", "Named now")
    assert limiter.known_at == "2025-06-01T12:00:00.000000Z"  # the state's time, not the name's


def test_a_later_response_replaces_state_but_not_names(inventory: Inventory) -> None:
    body = {"rateLimits": {"rateLimits": [{"id": "rl-1", "isActive": True, "name": "Login"}]}}
    inventory.learn_limiter_change("acc", "p1", change("rl-1", True, body))
    body = {"rateLimits": {"rateLimits": [{"id": "rl-1", "isActive": False}]}}
    inventory.learn_limiter_change("acc", "p1", change("rl-1", False, body))
    limiter = inventory.limiter("acc", "p1", "rl-1")
    assert limiter is not None
    assert (limiter.is_active, limiter.name) == (False, "Login")
    assert limiter.known_at == "2025-06-01T12:00:01.000000Z"


def test_an_empty_project_name_is_ignored(inventory: Inventory) -> None:
    inventory.add_project("acc", "p1", "Shop")
    inventory.learn_limiter_change("acc", "p1", change("rl-1", True, {"name": ""}))
    inventory.learn_limiter_change("acc", "p1", change("rl-1", True, {"name": None}))
    assert inventory.project("acc", "p1").name == "Shop"  # type: ignore[union-attr]
    inventory.learn_limiter_change("acc", "p1", change("rl-1", True, {"name": "Renamed"}))
    project = inventory.project("acc", "p1")
    assert project is not None and (project.name, project.source) == ("Renamed", "response")


def test_the_server_key_is_never_stored(inventory: Inventory) -> None:
    body = {"name": "Shop", "serverKey": "SERVER-KEY-CANARY", "siteKey": "site"}
    inventory.learn_limiter_change("acc", "p1", change("rl-1", True, body))
    inventory.close()
    for path in inventory.path.parent.iterdir():
        assert b"SERVER-KEY-CANARY" not in path.read_bytes()


def test_thresholds_are_kept_as_the_literals_sent(inventory: Inventory) -> None:
    inventory.add_dimension("acc", "p1", "dim-1", "Old name")
    thresholds = DimensionThresholds(name="Bot score", block="0.80", challenge="0.123456789")
    inventory.learn_thresholds("acc", "p1", "dim-1", thresholds)
    dimension = inventory.dimension("acc", "p1", "dim-1")
    assert dimension is not None
    assert (dimension.name, dimension.block, dimension.challenge, dimension.source) == (
        "Bot score",
        "0.80",
        "0.123456789",
        "request",
    )
    assert dimension.thresholds() == thresholds
    assert dimension.previous() == {
        "name": "Bot score",
        "blockThreshold": "0.80",
        "challengeThreshold": "0.123456789",
    }
    # Learning a dimension of an unknown project makes the project known.
    inventory.learn_thresholds("acc", "p-new", "d", thresholds)
    assert inventory.project("acc", "p-new") is not None
    with pytest.raises(TypeError):
        inventory.learn_thresholds("acc", "p1", "d", {"name": "x"})  # type: ignore[arg-type]


def test_set_limiter_state_by_the_user(inventory: Inventory) -> None:
    inventory.set_limiter_state("acc", "p1", "rl-1", True)
    assert states(inventory) == {"rl-1": (True, "user")}
    with pytest.raises(TypeError):
        inventory.set_limiter_state("acc", "p1", "rl-1", "yes")  # type: ignore[arg-type]


def test_two_objects_on_one_file_see_each_others_writes(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    cli, tui = Inventory.at(locations, "prod"), Inventory.at(locations, "prod")
    cli.add_limiter("acc", "p1", "rl-1")
    assert [r.id for r in tui.limiters("acc", "p1")] == ["rl-1"]
    tui.remove_limiter("acc", "p1", "rl-1")
    assert cli.limiters("acc", "p1") == []


WRITER = """
import sys, time
from pathlib import Path
from bottui.store.inventory.inventory_file import Inventory
inventory = Inventory(Path(sys.argv[1]), "prod")
name, go = sys.argv[2], float(sys.argv[3])
while time.time() < go:
    pass
for n in range(200):
    inventory.add_limiter("acc", "p1", f"{name}-{n}")
    inventory.set_limiter_state("acc", "p1", f"shared-{n}", n % 2 == 0, source=name)
print("done", flush=True)
"""


def test_two_processes_learning_at_once(tmp_path: Path) -> None:
    path = tmp_path / "data" / "inventory.sqlite3"
    go = str(time.time() + 0.5)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, go],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for name in ("a", "b")
    ]
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0 and out.strip() == "done", err
    limiters = {r.id: r for r in Inventory(path, "prod").limiters("acc", "p1")}
    assert len(limiters) == 600
    assert all(limiters[f"shared-{n}"].is_active is (n % 2 == 0) for n in range(200))
