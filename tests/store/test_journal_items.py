"""``item_states`` answers exactly what the run's entries say, whatever the order of attempts.

The resume lookups take shortcuts (a chunk's first attempts found by walking
ids, later attempts looked up, keys as one blob): here they are checked
against the plain reading of every entry of the run.
"""

from __future__ import annotations

import random
from pathlib import Path

from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import SETTLED_OUTCOMES, EntryId, ItemState, StartRecord

SETTLED = {str(o) for o in SETTLED_OUTCOMES}


def record(run: int, key: str) -> StartRecord:
    return StartRecord(
        profile="prod",
        base_url="u",
        operation="grant.revoke",
        account="acc",
        project="p",
        target={"visitorId": f"v-{key}"},
        request_body={"subject": {"visitorId": f"v-{key}"}},
        run_id=run,
        item_key=key,
    )


def expected(journal: Journal, run: int, keys: list[str]) -> dict[str, ItemState]:
    """The states as a reader of every entry of the run works them out."""
    states: dict[str, ItemState] = {}
    for entry in sorted(journal.entries(run_id=run), key=lambda e: e.id):
        key = entry.item_key
        if key not in keys or key is None:
            continue
        was = states.get(key, ItemState(False, None, ()))
        if entry.outcome is None:
            states[key] = ItemState(
                was.settled, was.last_outcome, (*was.unfinished, EntryId(entry.id))
            )
        else:
            states[key] = ItemState(
                was.settled or entry.outcome in SETTLED, entry.outcome, was.unfinished
            )
    return states


def test_item_states_match_the_entries_in_every_order(tmp_path: Path) -> None:
    rng = random.Random(7)
    journal = Journal(tmp_path / "journal.sqlite3")
    digests = [rng.randbytes(16).hex() for _ in range(300)]
    # Not hex: exact ids as text (quotes, accents, a hex-looking one among them).
    texts = [f'line "{n}" é' for n in range(119)] + ["abcd"]
    runs = {
        "digests": journal.run(
            profile="prod", account="acc", project="p", input_sha256="a" * 64,
            operation="grant.revoke",
        ),
        "texts": journal.run(
            profile="prod", account="acc", project="p", input_sha256="b" * 64,
            operation="grant.revoke",
        ),
    }  # fmt: skip
    for name, keys in (("digests", digests), ("texts", texts)):
        run = runs[name]
        attempted = keys[: len(keys) * 5 // 6]  # the first pass stopped early
        with journal.batch(interval=0) as writer:
            # Pass 1 in input order, chunks of 50, one key twice in a chunk.
            for at in range(0, len(attempted), 50):
                chunk = attempted[at : at + 50]
                ids = writer.start_many([record(run, k) for k in [*chunk, chunk[0]]])
                for entry_id in ids:
                    roll = rng.random()
                    if roll < 0.6:
                        writer.finish(entry_id, outcome=rng.choice(sorted(SETTLED)))
                    elif roll < 0.9:
                        writer.finish(entry_id, outcome="network-error")
                    # else: unfinished (a crash lost its answer)
            # Pass 2 (a resume): some again in order, a few out of order, and new ones.
            again = [k for k in attempted if rng.random() < 0.3]
            later = keys[len(attempted) :]
            for chunk in (again[::-1][:7], again, later):
                for entry_id in writer.start_many([record(run, k) for k in chunk]):
                    if rng.random() < 0.8:
                        writer.finish(entry_id, outcome="unknown-retried")
        unknown = [f"{n:032x}" for n in range(5)] + ["never sent"]
        asked = keys + unknown
        everything = expected(journal, run, asked)
        for size in (1, 7, 40, 1000):
            for at in range(0, len(asked), size):
                part = asked[at : at + size]
                want = {k: everything[k] for k in part if k in everything}
                assert journal.item_states(run, part) == want, (name, size, at)
    journal.close()
