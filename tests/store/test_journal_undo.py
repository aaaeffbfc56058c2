"""Tests of finding the change ``bottui undo`` reverses, and of its refusals."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bottui.api.models import DimensionThresholds
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import (
    Operation,
    dimension_target,
    limiter_target,
    value_of,
)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal.at(Locations.under(tmp_path), operator="ops@box")
    yield j
    j.close()


def limiter_change(
    journal: Journal,
    active: bool,
    previous: bool | None,
    *,
    outcome: str | None = "ok",
    profile: str = "prod",
    limiter: str = "rl-1",
    undo_of: int | None = None,
) -> int:
    entry_id = journal.start(
        profile=profile,
        base_url="https://api.example.com",
        operation=Operation.SET_LIMITER_ACTIVE,
        account="acc",
        project="p1",
        target=limiter_target(limiter),
        request_body={"isActive": active},
        previous=None if previous is None else {"isActive": previous},
        undo_of=undo_of,
    )
    if outcome is not None:
        journal.finish(entry_id, outcome=outcome, status=200 if outcome == "ok" else None)
    return entry_id


def threshold_change(
    journal: Journal, body: dict[str, Any], previous: dict[str, Any] | None, outcome: str = "ok"
) -> int:
    entry_id = journal.start(
        profile="prod",
        base_url="https://api.example.com",
        operation=Operation.SET_THRESHOLDS,
        account="acc",
        project="p1",
        target=dimension_target("dim-1"),
        request_body=body,
        previous=previous,
    )
    journal.finish(entry_id, outcome=outcome)
    return entry_id


def test_nothing_to_undo(journal: Journal) -> None:
    candidate = journal.last_undoable("prod", "limiter")
    assert not candidate.possible and candidate.entry is None
    assert candidate.reason == "no rate limiter change of profile 'prod' is in the journal"
    with pytest.raises(ValueError):
        candidate.journal_fields()


def test_the_last_limiter_change_and_its_previous_value(journal: Journal) -> None:
    limiter_change(journal, False, True, limiter="rl-old")
    last = limiter_change(journal, True, False)
    candidate = journal.last_undoable("prod", "limiter")
    assert candidate.possible and candidate.reason is None
    assert candidate.entry is not None and candidate.entry.id == last
    assert candidate.target_id == "rl-1"
    assert candidate.restore == {"isActive": False}
    assert candidate.current == {"isActive": True}
    assert candidate.restore_active() is False
    fields = candidate.journal_fields()
    assert fields == {
        "operation": "limiter.set-active",
        "account": "acc",
        "project": "p1",
        "target": {"rate_limiter_id": "rl-1"},
        "request_body": {"isActive": False},
        "previous": {"isActive": True},
        "undo_of": last,
    }
    # The undo is journaled as its own entry pointing at the one it undoes...
    undo = journal.start(profile="prod", base_url="https://api.example.com", **fields)
    journal.finish(undo, outcome="ok", status=200)
    assert journal.entry(undo).undo_of == last  # type: ignore[union-attr]
    # ... and undoing it again is a redo.
    redo = journal.last_undoable("prod", "limiter")
    assert redo.entry is not None and redo.entry.id == undo
    assert redo.restore == {"isActive": True}


def test_refused_when_the_previous_value_was_unknown(journal: Journal) -> None:
    entry_id = limiter_change(journal, True, None)
    candidate = journal.last_undoable("prod", "limiter")
    assert not candidate.possible
    assert candidate.entry is not None and candidate.entry.id == entry_id
    assert candidate.reason is not None
    assert f"#{entry_id}" in candidate.reason and "not known" in candidate.reason
    with pytest.raises(ValueError, match="not known"):
        candidate.restore_active()


@pytest.mark.parametrize("outcome", [None, "network-error", "unknown", "unusable-body"])
def test_refused_when_the_last_attempt_has_no_known_outcome(
    journal: Journal, outcome: str | None
) -> None:
    limiter_change(journal, False, True)
    limiter_change(journal, True, False, outcome=outcome, limiter="rl-2")
    candidate = journal.last_undoable("prod", "limiter")
    assert not candidate.possible
    assert candidate.reason is not None and "current value is not known" in candidate.reason


@pytest.mark.parametrize("outcome", ["api-error", "refused"])
def test_attempts_that_changed_nothing_are_looked_past(journal: Journal, outcome: str) -> None:
    good = limiter_change(journal, False, True)
    limiter_change(journal, True, False, outcome=outcome, limiter="rl-2")
    candidate = journal.last_undoable("prod", "limiter")
    assert candidate.possible and candidate.entry is not None and candidate.entry.id == good


def test_kinds_and_profiles_are_separate(journal: Journal) -> None:
    limiter_change(journal, False, True, profile="staging")
    threshold_change(
        journal,
        {"name": "Bot", "blockThreshold": "0.9", "challengeThreshold": "0.6"},
        {"name": "Bot", "blockThreshold": "0.8", "challengeThreshold": "0.5"},
    )
    assert not journal.last_undoable("prod", "limiter").possible
    assert journal.last_undoable("staging", "limiter").possible
    assert journal.last_undoable("prod", "thresholds").possible
    assert not journal.last_undoable("staging", "thresholds").possible


def test_the_last_threshold_change_keeps_its_literals(journal: Journal) -> None:
    entry_id = threshold_change(
        journal,
        {"name": "Bot", "blockThreshold": 0.9, "challengeThreshold": 0.6},  # numbers sent
        {"name": "Bot score", "blockThreshold": "0.80", "challengeThreshold": "0.123456789"},
    )
    candidate = journal.last_undoable("prod", "thresholds")
    assert candidate.possible and candidate.target_id == "dim-1"
    assert candidate.entry is not None and candidate.entry.id == entry_id
    assert candidate.restore_thresholds() == DimensionThresholds(
        name="Bot score", block="0.80", challenge="0.123456789"
    )
    assert candidate.current == {
        "name": "Bot",
        "blockThreshold": "0.9",
        "challengeThreshold": "0.6",
    }
    with pytest.raises(ValueError):
        candidate.restore_active()


def test_an_unusable_previous_value_is_explained(journal: Journal) -> None:
    threshold_change(journal, {"name": "Bot"}, {"name": "Bot", "blockThreshold": "high"})
    candidate = journal.last_undoable("prod", "thresholds")
    assert not candidate.possible
    assert candidate.reason is not None and "cannot use" in candidate.reason


def test_previous_values_come_from_the_inventory(tmp_path: Path, journal: Journal) -> None:
    """The caller's flow: read ``previous`` from the inventory, journal it, undo with it."""
    inventory = Inventory.at(Locations.under(tmp_path), "prod")
    inventory.set_limiter_state("acc", "p1", "rl-1", True, source="response")
    inventory.learn_thresholds("acc", "p1", "dim-1", DimensionThresholds("Bot", "0.8", "0.5"))

    known = inventory.limiter("acc", "p1", "rl-1")
    assert known is not None
    limiter_change(journal, False, known.is_active)
    assert journal.last_undoable("prod", "limiter").restore == known.previous()

    dimension = inventory.dimension("acc", "p1", "dim-1")
    assert dimension is not None
    threshold_change(
        journal,
        {"name": "Bot", "blockThreshold": "0.95", "challengeThreshold": "0.7"},
        dimension.previous(),
    )
    candidate = journal.last_undoable("prod", "thresholds")
    assert candidate.restore_thresholds() == dimension.thresholds()


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("limiter", {"isActive": True}, {"isActive": True}),
        ("limiter", {"isActive": "true"}, None),
        ("limiter", None, None),
        ("thresholds", {"name": "n", "blockThreshold": 1, "challengeThreshold": "0.5"},
         {"name": "n", "blockThreshold": "1", "challengeThreshold": "0.5"}),
        ("thresholds", {"name": "n", "blockThreshold": True, "challengeThreshold": "0.5"}, None),
        ("thresholds", {"blockThreshold": "1", "challengeThreshold": "0.5"}, None),
        ("thresholds", {"name": "n", "blockThreshold": "1"}, None),
    ],
)  # fmt: skip
def test_value_of(kind: Any, value: Any, expected: Any) -> None:
    assert value_of(kind, value) == expected
