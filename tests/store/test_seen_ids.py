"""#12: the on-disk de-duplication of bulk inputs is exact, and leaves no file behind."""

from __future__ import annotations

import os
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bottui.store.seen_ids import SeenIds


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="ab\x1fé", min_size=0, max_size=3), max_size=40)))
def test_first_seen_is_exactly_a_set(batches: list[list[str]]) -> None:
    seen = SeenIds()
    reference: set[str] = set()
    try:
        for batch in batches:
            expected = []
            for key in batch:
                expected.append(key not in reference)
                reference.add(key)
            assert seen.first_seen(batch) == expected
        assert seen.count == len(reference)
    finally:
        seen.close()


def test_near_identical_keys_stay_distinct() -> None:
    # No digest, no filter: keys differing in one character, or only by case,
    # by a trailing space or by Unicode normalisation, are all distinct.
    keys = [f"vis_{n:06d}" for n in range(20_000)]
    keys += [k.upper() for k in keys[:1000]] + [k + " " for k in keys[:1000]]
    keys += ["café", "cafe\u0301"]
    random.Random(7).shuffle(keys)
    seen = SeenIds()
    try:
        fresh = [
            f
            for start in range(0, len(keys), 512)
            for f in seen.first_seen(keys[start : start + 512])
        ]
        assert all(fresh) and seen.count == len(keys)
        assert seen.first_seen(keys[:512]) == [False] * 512
    finally:
        seen.close()


def _open_files() -> set[str]:
    names = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            names.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:  # the descriptor listdir itself used
            continue
    return names


def test_no_file_is_left_in_the_temporary_directory() -> None:
    before = _open_files()
    seen = SeenIds()
    for start in range(0, 400_000, 4096):  # past the page cache: the file is used
        seen.first_seen([f"key-{n:09d}" for n in range(start, start + 4096)])
    opened = _open_files() - before
    seen.close()
    # SQLite unlinked its file as soon as it opened it: what it holds is deleted.
    files = [name for name in opened if name.startswith("/")]
    assert files and all(name.endswith("(deleted)") for name in files), files
