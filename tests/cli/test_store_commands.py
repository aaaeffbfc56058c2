"""The CLI of issue #3 against the loopback sandbox: inventory, journal, undo."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from bottui.demo import inventory_toml
from bottui.sandbox import demo_data
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from tests.cli.helpers import cli
from tests.fixtures.sandbox import ACC, PROJ, scope


@pytest.fixture
def seed(tmp_path: Path) -> Path:
    """The demo team's inventory file."""
    path = tmp_path / "team.toml"
    path.write_text(inventory_toml(), encoding="utf-8")
    return path


def sent(sandbox: SandboxServer) -> list[tuple[str, str, Any]]:
    return [(r.method, r.segments[-2], r.json) for r in sandbox.state.recorder.log]


def entries(*argv: str) -> list[dict[str, Any]]:
    r = cli("journal", "--json", *argv)
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["count"] == len(doc["entries"])
    found: list[dict[str, Any]] = doc["entries"]
    return found


class FakeTerminal(io.StringIO):
    """A stdin that says it is a terminal and answers the prompt."""

    def isatty(self) -> bool:
        return True


# -- inventory -----------------------------------------------------------------------


def test_inventory_import_list_export_round_trip(seed: Path, tmp_path: Path) -> None:
    r = cli("inventory", "import", str(seed), "--json")
    assert r.code == 0, r.err
    report = r.json()
    assert report["added"] > 0 and report["changed"] == 0
    listed = cli("inventory", "list", "--json").json()
    assert {p["project"] for p in listed["projects"]} == set(demo_data.DEMO_PROJECTS)
    login = next(x for x in listed["limiters"] if (x["project"], x["id"]) == (PROJ, "rl-login"))
    assert login["is_active"] is True and login["name"] == "Login bursts"

    first = tmp_path / "first.toml"
    r = cli("inventory", "export", str(first))
    assert r.code == 0 and "to " in r.out and "limiters" in r.out
    # Importing what was exported changes nothing...
    r = cli("inventory", "import", str(first), "--json")
    assert (r.json()["added"], r.json()["changed"]) == (0, 0)
    # ... and another profile that imports it holds exactly the same records.
    assert cli("profile", "add", "other", "--base-url", "https://api.example.com").code == 0
    assert cli("profile", "add", "second", "--base-url", "https://api.example.com").code == 0
    assert cli("inventory", "import", str(first), "--profile", "second").code == 0
    copy = cli("inventory", "list", "--json", "--profile", "second").json()
    original = cli("inventory", "list", "--json", "--profile", "other").json()
    assert original["accounts"] == []  # profiles do not share rows
    assert {k: v for k, v in copy.items() if k != "profile"} == {
        k: v for k, v in listed.items() if k != "profile"
    }


def test_inventory_import_reports_what_it_changed(seed: Path, tmp_path: Path) -> None:
    assert cli("inventory", "import", str(seed)).code == 0
    exported = tmp_path / "exported.toml"
    assert cli("inventory", "export", str(exported)).code == 0
    changed = tmp_path / "changed.toml"
    text = exported.read_text(encoding="utf-8")
    assert '"Login bursts"' in text
    changed.write_text(text.replace('"Login bursts"', '"Login storms"', 1), encoding="utf-8")
    r = cli("inventory", "import", str(changed))
    assert r.code == 0, r.err
    assert "1 changed" in r.out
    assert "Login storms" in r.out  # the line saying what changed
    r = cli("inventory", "list")
    assert r.code == 0
    assert "limiter rl-login (Login storms): ON" in r.out
    assert f"account {ACC} ({demo_data.DEMO_ACCOUNT_NAME})" in r.out


def test_inventory_bad_file_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('format = "bottui-inventory"\nversion = 1\n[[projects]\n', encoding="utf-8")
    r = cli("inventory", "import", str(bad))
    assert r.code == 2 and "error:" in r.err and "Traceback" not in r.err
    r = cli("inventory", "import", str(tmp_path / "missing.toml"), "--json")
    assert r.code == 2 and r.json()["error"]["type"] == "local_error"
    assert cli("inventory", "list", "--json").json()["projects"] == []


def test_inventory_list_empty() -> None:
    r = cli("inventory", "list")
    assert r.code == 0 and "empty" in r.out


# -- journal -------------------------------------------------------------------------


def test_success_and_api_error_are_journaled(
    env: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    monkeypatch.setenv("BOTTUI_API_KEY", "prj_wrong")
    r = cli("limiter", "enable", "rl-login", *scope())
    assert r.code == 1
    failed, ok = entries()
    assert ok["operation"] == failed["operation"] == "limiter.set-active"
    assert ok["target"] == failed["target"] == {"rate_limiter_id": "rl-login"}
    assert (ok["outcome"], ok["status"], ok["unfinished"]) == ("ok", 200, False)
    assert ok["request_body"] == {"isActive": False}
    assert ok["result"]["project"]["serverKey"] == "***"
    assert (failed["outcome"], failed["status"]) == ("api-error", 401)
    assert failed["error"]["status"] == 401
    assert failed["duration_ms"] is not None and failed["id"] > ok["id"]
    assert ok["profile"] == "default" and "@" in ok["operator"]

    r = cli("journal")
    assert r.code == 0
    newest, oldest = r.out.splitlines()
    assert "api-error 401" in newest and "ok 200" in oldest
    for part in ("limiter.set-active", f"{ACC}/{PROJ}", "rl-login -> OFF", "default", " ms"):
        assert part in oldest
    assert oldest.endswith(f"#{ok['id']}")


def test_thresholds_and_revocations_are_journaled(env: SandboxServer) -> None:
    r = cli(
        "thresholds", "set", "bot-score", *scope(),
        "--name", "Bot score", "--block", "0.9", "--challenge", "0.6",
    )  # fmt: skip
    assert r.code == 0, r.err
    assert cli("revoke", *scope(), "--visitor-id", "vis_7Hq2kP9xLm").code == 0
    revoke, thresholds = entries()
    assert thresholds["target"] == {"dimension_id": "bot-score"}
    assert thresholds["outcome"] == "ok"
    assert revoke["operation"] == "grant.revoke" and revoke["outcome"] == "withdrawn"
    assert [e["operation"] for e in entries("--operation", "thresholds")] == ["thresholds.set"]
    assert len(entries("--outcome", "succeeded")) == 2
    assert entries("--outcome", "failed") == []
    assert len(entries("--outcome", "withdrawn")) == 1
    assert cli("journal", "--operation", "nope").code == 2


def test_journal_filters(env: SandboxServer) -> None:
    monkeypatch_env = {"BOTTUI_API_KEY": demo_data.DEMO_PROJECT_TOKENS["shop-staging"]}
    assert cli("limiter", "enable", "rl-api", *scope()).code == 0
    with pytest.MonkeyPatch.context() as mp:
        for key, value in monkeypatch_env.items():
            mp.setenv(key, value)
        assert cli("limiter", "enable", "rl-signup", *scope("shop-staging")).code == 0
    assert len(entries()) == 2
    assert [e["project"] for e in entries("--project", "shop-staging")] == ["shop-staging"]
    assert entries("--since", "2999-01-01") == []
    assert len(entries("--since", "2000-01-01T00:00:00Z")) == 2
    assert len(entries("--limit", "1")) == 1
    assert entries("--unfinished") == []
    assert len(entries("--profile", "default")) == 2
    # A profile neither in the config nor in the journal is refused as every command does (#16).
    assert cli("journal", "--json", "--profile", "gone").code == 2
    r = cli("journal", "--since", "yesterday")
    assert r.code == 2 and "ISO 8601" in r.err


def test_journal_export_jsonl_and_csv(env: SandboxServer, tmp_path: Path) -> None:
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    assert cli("revoke", *scope(), "--visitor-id", "=HYPERLINK(1)").code == 0
    jsonl = tmp_path / "out.jsonl"
    r = cli("journal", "--export", str(jsonl))
    assert r.code == 0 and "exported 2 entries" in r.out
    lines = [json.loads(x) for x in jsonl.read_text(encoding="utf-8").splitlines()]
    assert [x["operation"] for x in lines] == ["grant.revoke", "limiter.set-active"]
    table = tmp_path / "out.csv"
    r = cli("journal", "--export", str(table), "--json")
    assert r.json() == {"exported": 2, "file": str(table), "format": "csv"}
    rows = list(csv.DictReader(table.open(encoding="utf-8", newline="")))
    assert [row["outcome"] for row in rows] == ["nothing-standing", "ok"]
    assert "=HYPERLINK(1)" in rows[0]["target"]
    assert not any(cell.startswith("=") for row in rows for cell in row.values())
    forced = tmp_path / "out.txt"
    assert cli("journal", "--export", str(forced), "--format", "csv").code == 0
    assert forced.read_text(encoding="utf-8").startswith("id,started_at")
    r = cli("journal", "--export", str(tmp_path / "out.txt"))
    assert r.code == 2 and ".jsonl or .csv" in r.err
    assert cli("journal", "--format", "csv").code == 2


def test_unwritable_journal_warns_and_changes_nothing_else(env: SandboxServer) -> None:
    journal_file = Locations.default().journal_file
    journal_file.parent.mkdir(parents=True, exist_ok=True)
    journal_file.write_bytes(b"this is not a database, it is a damaged journal file" * 100)
    r = cli("limiter", "disable", "rl-login", *scope())
    assert r.code == 0, r.err
    assert "warning:" in r.err and "NOT journaled" in r.err
    assert "rl-login: OFF" in r.out
    assert sent(env) == [("PATCH", "rl-login", {"isActive": False})]
    # Under --json too: the one document on stdout, the warning on stderr.
    r = cli("limiter", "enable", "rl-login", *scope(), "--json")
    assert r.code == 0 and r.json()["id"] == PROJ and "NOT journaled" in r.err
    # Reading it says what is wrong, without a traceback.
    r = cli("journal")
    assert r.code == 2 and "error:" in r.err and "Traceback" not in r.err


# -- undo ----------------------------------------------------------------------------


def test_undo_restores_the_previous_limiter_state(env: SandboxServer, seed: Path) -> None:
    assert cli("inventory", "import", str(seed)).code == 0
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0  # known ON before
    r = cli("undo", "--yes")
    assert r.code == 0, r.err
    assert "rate limiter rl-login of acme/shop-prod: OFF -> ON" in r.out
    assert "is ON again" in r.out
    assert sent(env)[-1] == ("PATCH", "rl-login", {"isActive": True})
    undo_entry, first = entries()
    assert undo_entry["undo_of"] == first["id"] and undo_entry["outcome"] == "ok"
    assert undo_entry["request_body"] == {"isActive": True}
    assert undo_entry["target"] == first["target"]
    assert f"(undo #{first['id']})" in cli("journal").out.splitlines()[0]
    # Undoing the undo is a redo.
    r = cli("undo", "--yes", "--json")
    assert r.code == 0
    doc = r.json()
    assert doc["undoes"] == undo_entry["id"] and doc["to"] == {"isActive": False}
    assert doc["journalId"] == entries()[0]["id"]
    assert sent(env)[-1] == ("PATCH", "rl-login", {"isActive": False})


def test_undo_thresholds_and_the_newer_of_two(env: SandboxServer, seed: Path) -> None:
    assert cli("inventory", "import", str(seed)).code == 0
    r = cli(
        "thresholds", "set", "bot-score", *scope(),
        "--name", "Bot score", "--block", "0.95", "--challenge", "0.55",
    )  # fmt: skip
    assert r.code == 0
    assert cli("limiter", "enable", "rl-api", *scope()).code == 0  # known OFF before
    # No kind: the newer one (the limiter).
    r = cli("undo", "--dry-run")
    assert r.code == 0 and "rate limiter rl-api of acme/shop-prod: ON -> OFF" in r.out
    assert "PATCH " in r.out and "dry run: nothing was sent" in r.err
    requests = len(env.state.recorder.log)
    r = cli("undo", "--kind", "thresholds", "--yes")
    assert r.code == 0, r.err
    assert "dimension bot-score" in r.out
    assert "Bot score: block 0.95, challenge 0.55 -> Bot score: block 0.8, challenge 0.5" in r.out
    assert len(env.state.recorder.log) == requests + 1
    last = env.state.recorder.log[-1]
    assert last.method == "PUT" and last.segments[-1] == "bot-score"
    assert last.body == b'{"name":"Bot score","blockThreshold":0.8,"challengeThreshold":0.5}'


def test_undo_refusals_exit_2_and_send_nothing(
    env: SandboxServer, seed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = cli("undo", "--yes")
    assert r.code == 2 and "nothing to undo" in r.err
    # The inventory did not know rl-login's state: there is nothing to restore.
    assert cli("limiter", "disable", "rl-login", *scope()).code == 0
    r = cli("undo", "--yes", "--json")
    assert r.code == 2 and "not known" in r.err
    assert r.json()["error"]["code"] == "UndoRefused"
    # Known now; but a read-only profile, no terminal, a "no", or another base URL refuse.
    assert cli("inventory", "import", str(seed)).code == 0
    assert cli("limiter", "disable", "rl-checkout", *scope()).code == 0
    before = len(env.state.recorder.log)
    r = cli("undo", "--read-only", "--yes")
    assert r.code == 2 and "read-only" in r.err.lower()
    r = cli("undo")
    assert r.code == 2 and "pass --yes" in r.err
    monkeypatch.setattr("sys.stdin", FakeTerminal("n\n"))
    r = cli("undo")
    assert r.code == 2 and "[y/N]" in r.err and "nothing was sent" in r.err
    r = cli("undo", "--yes", "--base-url", "http://127.0.0.1:9")
    assert r.code == 2 and "was sent to" in r.err
    assert len(env.state.recorder.log) == before
    # "y" on a terminal confirms.
    monkeypatch.setattr("sys.stdin", FakeTerminal("y\n"))
    r = cli("undo")
    assert r.code == 0, r.err
    assert sent(env)[-1] == ("PATCH", "rl-checkout", {"isActive": True})


def test_undo_refuses_after_an_unknown_outcome_and_names_the_other_kind(
    env: SandboxServer, seed: Path
) -> None:
    assert cli("inventory", "import", str(seed)).code == 0
    r = cli(
        "thresholds", "set", "bot-score", *scope(),
        "--name", "Bot score", "--block", "0.95", "--challenge", "0.55",
    )  # fmt: skip
    assert r.code == 0
    env.faults.configure(non_json_next=1)  # the answer is unusable: did it apply?
    assert cli("limiter", "enable", "rl-api", *scope()).code == 1
    r = cli("undo", "--yes")
    assert r.code == 2
    assert "unusable-body" in r.err and "--kind thresholds" in r.err


def test_undo_on_a_protected_profile_needs_yes(
    sandbox: SandboxServer, seed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOTTUI_API_KEY", demo_data.DEMO_PROJECT_TOKENS[PROJ])
    r = cli("profile", "add", "prod", "--base-url", sandbox.base_url, "--protected", *scope())
    assert r.code == 0
    assert cli("inventory", "import", str(seed)).code == 0
    assert cli("limiter", "disable", "rl-login", "--yes").code == 0
    monkeypatch.setattr("sys.stdin", FakeTerminal("y\n"))
    r = cli("undo")
    assert r.code == 2 and "protected" in r.err.lower()
    assert sandbox.stats.requests == 1
    r = cli("undo", "--yes")
    assert r.code == 0, r.err
    assert sandbox.stats.requests == 2
