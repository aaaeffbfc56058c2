"""One namespace per kind of id (#27 item 3): local numbers, teammates' event ids, runs."""

from __future__ import annotations

from msgspec.structs import replace

from bottui.ops import journal_view
from bottui.store.journal.journal_records import JournalEntry

ORIGIN = "3f2a9c1b-0000-4000-8000-000000000001"
MINE = JournalEntry(
    id=7, started_at="2026-11-21T03:00:00.000000Z", operator="me", pid=1, profile="prod",
    base_url="https://api.example.com", operation="grant.revoke", account="acme",
    project="shop-prod", target={"visitorId": "v"}, request_body=None, previous=None,
    undo_of=None, run_id=1, item_key="v", finished_at=None, outcome=None, status=None,
    result=None, error=None, duration_ms=None, origin="aaaaaaaa-0000-4000-8000-000000000000",
    shared=True,
)  # fmt: skip
#: A teammate's entry whose shared row id is 7 and whose own number is 17, in his run #1.
THEIRS = replace(MINE, origin=ORIGIN, local_id=17)


def test_a_local_number_and_a_teammates_event_id_never_read_alike() -> None:
    assert journal_view.entry_ref(MINE) == "#7"
    assert journal_view.entry_ref(THEIRS) == "3f2a9c1b:17"
    assert journal_view.entry_key(MINE) != journal_view.entry_key(THEIRS)
    assert journal_view.line(THEIRS).endswith("  3f2a9c1b:17")


def test_a_teammates_run_one_is_not_this_machines_run_one() -> None:
    assert journal_view.run_key(MINE) != journal_view.run_key(THEIRS)
    assert journal_view.run_ref(MINE) == "run #1"
    assert journal_view.run_ref(THEIRS) == "run 3f2a9c1b:1"


def test_the_two_ways_of_not_being_shared_are_told_apart() -> None:
    waiting = replace(MINE, shared=False)
    older = replace(MINE, shared=False, before_store=True)
    assert journal_view.sharing_text(waiting) == "not yet shared"
    assert journal_view.sharing_text(older) == "not shared"
    assert journal_view.sharing_text(MINE) == ""
    assert "(not shared)" in journal_view.line(older)
