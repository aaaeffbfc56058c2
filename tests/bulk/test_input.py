"""Reading a bulk input: formats, encodings, bad lines, deduplication, identity."""

from __future__ import annotations

import hashlib
import io
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bottui.ops.bulk.input import (
    MAX_LINE_BYTES,
    BulkInputError,
    BulkSource,
    Duplicate,
    InvalidLine,
    Subject,
    subject_key,
)


def items(source: BulkSource) -> list[Subject | InvalidLine | Duplicate]:
    return list(source.read())


def subjects(source: BulkSource) -> list[tuple[int, str | None, str | None]]:
    return [
        (i.line, i.visitor_id, i.user_account_id) for i in items(source) if isinstance(i, Subject)
    ]


def invalid(source: BulkSource) -> list[tuple[int, str]]:
    return [(i.line, i.reason) for i in items(source) if isinstance(i, InvalidLine)]


def test_one_visitor_id_per_line(ids_file: Callable[..., Path]) -> None:
    source = BulkSource.from_path(ids_file(["vis_a", "  vis_b\t", "", "   ", "vis c/d", "vis/c%d"]))
    # "vis c/d" holds a space: two ids or an id and a note, never one id (#27).
    assert subjects(source) == [(1, "vis_a", None), (2, "vis_b", None), (6, "vis/c%d", None)]
    assert source.candidate_lines == 4


def test_csv_with_bom_crlf_whitespace_and_extra_columns(ids_file: Callable[..., Path]) -> None:
    path = ids_file(
        [
            " visitorId , userAccountId ,note",
            "vis_1,,first",
            "  vis_2 , user-2 , second ",
            "",
            ",user-3,third",
            '"vis,4","",quoted comma',
        ],
        sep="\r\n",
        prefix=b"\xef\xbb\xbf",
    )
    source = BulkSource.from_path(path)
    assert subjects(source) == [
        (2, "vis_1", None),
        (3, "vis_2", "user-2"),
        (5, None, "user-3"),
        (6, "vis,4", None),
    ]
    assert invalid(source) == []
    assert source.candidate_lines == 4  # the header is not an id


@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_csv_semicolon_or_tab(ids_file: Callable[..., Path], delimiter: str) -> None:
    path = ids_file([f"userAccountId{delimiter}visitorId", f"u1{delimiter}v1"])
    assert subjects(BulkSource.from_path(path)) == [(2, "v1", "u1")]


def test_header_is_case_insensitive_and_may_name_one_column(
    ids_file: Callable[..., Path],
) -> None:
    path = ids_file(["USERACCOUNTID", "u-1", "u-2"])
    assert subjects(BulkSource.from_path(path)) == [(2, None, "u-1"), (3, None, "u-2")]


def test_bad_lines_have_numbers_and_reasons(ids_file: Callable[..., Path]) -> None:
    path = ids_file(
        [
            "visitorId,userAccountId",
            "ok-1,",
            ",",  # neither
            "a\x1bb,",  # control character
            "x" * 257 + ",",  # too long
            "a,b,c",  # too many fields
            '"unterminated,',
            "ok-2,u",
        ]
    )
    source = BulkSource.from_path(path)
    found = dict(invalid(source))
    assert sorted(found) == [3, 4, 5, 6, 7]
    assert found[3] == "no visitorId and no userAccountId"
    assert "control character (U+001B)" in found[4] and found[4].startswith("visitor id")
    assert "257 characters" in found[5]
    assert found[6] == "3 fields where the header has 2"
    assert "CSV" in found[7]
    assert [s[0] for s in subjects(source)] == [2, 8]


def test_invalid_utf8_and_overlong_lines(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_bytes(b"good\n\xff\xfebad\n" + b"y" * (MAX_LINE_BYTES + 10) + b"\nafter\n")
    source = BulkSource.from_path(path)
    assert invalid(source) == [
        (2, "not valid UTF-8 (byte 1)"),
        (3, f"longer than {MAX_LINE_BYTES} bytes"),
    ]
    assert subjects(source) == [(1, "good", None), (4, "after", None)]


def test_utf16_is_refused_as_a_whole(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_bytes("vis_1\nvis_2\n".encode("utf-16"))
    with pytest.raises(BulkInputError) as info:
        BulkSource.from_path(path)
    assert info.value.exit_code == 2


def test_duplicate_header_column_is_refused(ids_file: Callable[..., Path]) -> None:
    source = BulkSource.from_path(ids_file(["visitorId,visitorId", "a,b"]))
    with pytest.raises(BulkInputError):
        items(source)


def test_deduplicated_on_the_pair(ids_file: Callable[..., Path]) -> None:
    path = ids_file(["visitorId,userAccountId", "v,", "v,u", ",u", "v,", " v , u ", ",u", "u,"])
    read = items(BulkSource.from_path(path))
    kinds = [(type(i).__name__, i.line) for i in read]
    assert kinds == [
        ("Subject", 2),
        ("Subject", 3),
        ("Subject", 4),
        ("Duplicate", 5),
        ("Duplicate", 6),
        ("Duplicate", 7),
        ("Subject", 8),  # visitor "u" is not user "u"
    ]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "a", "b", "a b", 'q"uote', "s/l"]),
            st.sampled_from(["", "a", "x", "y/z"]),
        ),
        max_size=40,
    )
)
def test_dedup_keeps_exactly_the_distinct_pairs(pairs: list[tuple[str, str]]) -> None:
    lines = ["visitorId,userAccountId"]
    lines += [f'"{v.replace(chr(34), chr(34) * 2)}","{u}"' for v, u in pairs]
    source = BulkSource.from_text("\n".join(lines))
    got = [(s.visitor_id, s.user_account_id) for s in items(source) if isinstance(s, Subject)]
    wanted = list(dict.fromkeys((v or None, u or None) for v, u in pairs if v or u))
    assert got == wanted
    assert len({subject_key(v, u) for v, u in wanted}) == len(wanted)


def test_stdin_is_spooled_and_hashed_like_the_file(ids_file: Callable[..., Path]) -> None:
    path = ids_file(["vis_1", "vis_2", "vis_1"], sep="\r\n")
    data = path.read_bytes()
    from_file = BulkSource.from_path(path)
    from_stdin = BulkSource.from_stream(io.BytesIO(data))
    try:
        assert from_stdin.sha256 == from_file.sha256 == hashlib.sha256(data).hexdigest()
        assert (
            subjects(from_stdin) == subjects(from_file) == [(1, "vis_1", None), (2, "vis_2", None)]
        )
        assert subjects(from_stdin) == subjects(from_file)  # readable again
        assert from_stdin.candidate_lines == 3
    finally:
        from_stdin.close()


def test_pasted_text() -> None:
    source = BulkSource.from_text("\ufeffvis_1\r\n\r\nvis_2")
    assert subjects(source) == [(1, "vis_1", None), (3, "vis_2", None)]
    assert source.label == "pasted text"


def test_memory_stays_flat_whatever_the_count(tmp_path: Path) -> None:
    # #12: ids are deduplicated on disk, not in an in-process set: the Python
    # heap's peak while reading 100,000 distinct ids is that of reading 5,000.
    def peak(count: int) -> int:
        path = tmp_path / f"ids-{count}.txt"
        path.write_text("".join(f"visitor-{n:08d}\n" for n in range(count)))
        source = BulkSource.from_path(path)
        tracemalloc.start()
        try:
            reader = source.read()
            for _ in reader:
                pass
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(5_000), peak(100_000)
    assert large - small < 1_000_000, (small, large)  # an in-memory set: ~8 MB more


def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BulkInputError) as info:
        BulkSource.from_path(tmp_path / "missing.txt")
    assert info.value.exit_code == 2
