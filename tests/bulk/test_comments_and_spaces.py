"""Bulk input: a ``# comment`` line is skipped, an id holding a space is never sent (#27)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bottui.ops.bulk.input import SPACE_IN_ID, BulkSource, InvalidLine, Subject
from bottui.sandbox.server import SandboxServer
from tests.bulk.conftest import logged, visitor_ids
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope


def test_comments_are_skipped_and_spaces_refused_over_loopback(
    env: SandboxServer, ids_file: Callable[..., Path]
) -> None:
    path = ids_file(
        [
            "# INC-3107: ids from the WAF export",
            "vis_a",
            "  # an indented comment",
            "vis_b  # a note after the id",
            "vis_c vis_d",
            "vis_e",
        ]
    )
    r = cli("revoke", "--from-file", str(path), *scope(), "--json")
    assert r.code == 2, r.err  # some lines were invalid; every valid one was processed
    doc = r.json()
    assert doc["total"] == 2
    assert doc["invalid"] == [
        {"line": 4, "reason": SPACE_IN_ID},
        {"line": 5, "reason": SPACE_IN_ID},
    ]
    assert sorted(visitor_ids(logged(env))) == ["vis_a", "vis_e"]


def test_a_comment_first_does_not_decide_the_format() -> None:
    source = BulkSource.from_text("# revoked for INC-3107\nvisitorId,userAccountId\nvis_a,\n")
    items = list(source.read())
    assert [type(item) for item in items] == [Subject]
    assert isinstance(items[0], Subject) and items[0].visitor_id == "vis_a"
    spaced = list(BulkSource.from_text("vis a\n").read())
    assert spaced == [InvalidLine(1, SPACE_IN_ID)]
