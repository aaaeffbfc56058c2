"""Every ``--json`` document has the shape its schema documents (#16 item 7).

Real outputs of the loopback sandbox (and a real PostgreSQL for ``store``)
are validated against :data:`bottui.cli.help_topics.SCHEMAS` by a JSON
Schema validator (``jsonschema``, Draft 2020-12: the schemas are standard JSON
Schema, so a script author's own validator reads them too); a field renamed,
dropped or added without its schema fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, validators

from bottui.cli.help_topics import SCHEMAS, Schema, json_text
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli
from tests.fixtures.sandbox import scope

#: The generated JSON output page of the docs (once the README's section).
JSON_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "json.md"


#: Draft 2020-12 with one rule stricter: an ``integer`` is a JSON integer, never a
#: float such as ``1800.0`` (which the standard accepts): bottui prints counts and
#: seconds as integers, and a float there is a change a script author would see.
Strict = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)


def problems(doc: Any, schema: Schema) -> list[str]:
    """Where ``doc`` departs from ``schema`` (empty: it matches), as ``$.path: why``."""
    errors = Strict(schema).iter_errors(doc)
    return sorted(f"{error.json_path}: {error.message}" for error in errors)


def test_every_schema_is_json_schema() -> None:
    for schema in SCHEMAS.values():
        Draft202012Validator.check_schema(schema)


def test_an_integer_field_refuses_a_float() -> None:
    schema: Schema = {"type": "object", "properties": {"count": {"type": "integer"}}}
    assert problems({"count": 3}, schema) == []
    assert problems({"count": 3.0}, schema) != []
    assert problems({"count": True}, schema) != []


class Checked:
    """Runs commands with --json and validates each document against its schema."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, schema: str, *argv: str, code: int = 0, stdin: str | None = None) -> Any:
        done = cli(*argv, "--json", stdin=stdin)
        assert done.code == code, (argv, done)
        doc = json.loads(done.out)  # exactly one document
        assert problems(doc, SCHEMAS[schema]) == [], (schema, doc)
        self.seen.add(schema)
        return doc


def test_every_document_has_its_documented_shape(
    env: SandboxServer, tmp_path: Path, pg_admin_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    check = Checked()
    check("limiter enable|disable", "limiter", "disable", "rl-search", *scope())
    check("any change --dry-run", "limiter", "enable", "rl-search", *scope(), "--dry-run")
    check("revoke --visitor-id|--user-account-id", "revoke", *scope(), "--visitor-id", "v1")
    ids = tmp_path / "ids.txt"
    ids.write_text("v2\nv3\n\n" + "x" * 300 + "\n")
    bulk = ["revoke", *scope(), "--from-file", str(ids)]
    check("revoke --from-file --dry-run", *bulk, "--dry-run")
    check("revoke --from-file", *bulk, code=2)
    for block in ("0.9", "0.80"):
        check(
            "thresholds set", "thresholds", "set", "bot-score", *scope(),
            "--name", "Bot score", "--block", block, "--challenge", "0.5",
        )  # fmt: skip
    undone = check("undo", "undo", *scope(), "--yes")
    assert undone["to"]["blockThreshold"] == 0.9 and undone["from"]["blockThreshold"] == 0.8
    doc = check("journal", "journal")
    assert {e["operation"] for e in doc["entries"]} >= {"limiter.set-active", "grant.revoke"}
    for line in cli("journal", "--jsonl").out.splitlines():
        assert problems(json.loads(line), SCHEMAS["journal --jsonl (each line)"]) == []
    check.seen.add("journal --jsonl (each line)")
    check("journal --export FILE", "journal", "--export", str(tmp_path / "j.csv"))
    listed = check("inventory list", "inventory", "list")
    assert listed["dimensions"][0]["block"] == 0.9  # a number, like everywhere
    check("inventory export", "inventory", "export", str(tmp_path / "i.toml"))
    check("inventory import", "inventory", "import", str(tmp_path / "i.toml"))
    check("profile add", "profile", "add", "p1", "--base-url", "https://a.example")
    check("profile edit", "profile", "edit", "p1", "--protected", "--operator", "alice")
    check("profile list", "profile", "list")
    check("profile use", "profile", "use", "p1")
    check("profile remove", "profile", "remove", "p1")
    check("token status", "token", "status", *scope())
    check("token set personal|project", "token", "set", "personal", *scope(), stdin="t\n")
    check("token delete", "token", "delete", "personal", *scope())
    check("config check", "config", "check")
    check("any command that fails", "limiter", "enable", "..", *scope(), code=2)
    monkeypatch.setenv("BOTTUI_STORE_URL", pg_admin_url)
    check("store migrate", "store", "migrate")
    check("store status", "store", "status")
    check("store sync", "store", "sync", "--backfill")
    shared = check("journal", "journal")
    assert shared["entries"] and all(e.get("shared") for e in shared["entries"])
    check("token set store", "token", "set", "store", stdin="pw\n")
    assert check.seen == set(SCHEMAS), set(SCHEMAS) - check.seen


def test_the_validator_sees_a_change_of_shape() -> None:
    good = {"dimensionId": "d", "name": "n", "blockThreshold": 0.9, "challengeThreshold": 0.5}
    schema = SCHEMAS["thresholds set"]
    assert problems(good, schema) == []
    assert problems({**good, "blockThreshold": "0.9"}, schema) == [
        "$.blockThreshold: '0.9' is not of type 'number'"
    ]
    renamed = {k if k != "name" else "title": v for k, v in good.items()}
    assert problems(renamed, schema) == [
        "$: 'name' is a required property",
        "$: Additional properties are not allowed ('title' was unexpected)",
    ]
    # bool is an int to Python, never a number to JSON.
    assert problems({**good, "challengeThreshold": True}, schema) == [
        "$.challengeThreshold: True is not of type 'number'"
    ]


def test_the_help_topic_and_the_docs_page_say_the_same() -> None:
    body = JSON_PAGE.read_text(encoding="utf-8")
    fence = re.search(r"^```text\n(.*?)^```", body, re.S | re.M)
    assert fence is not None
    assert fence.group(1) == json_text().split("\n\n", 1)[1].rstrip("\n") + "\n"
