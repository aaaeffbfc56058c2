"""The journal end to end through real ``python -m bottui`` processes.

A SIGKILL while the sandbox holds the request leaves a started record that
``bottui journal --unfinished`` lists; a canary token used for runs that
succeed and fail never reaches the bytes of a database or an export file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bottui.sandbox import demo_data
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from tests.cli.helpers import cli, cli_process

ACC = demo_data.DEMO_ACCOUNT
PROJ = "shop-prod"
SCOPE = ["--account", ACC, "--project", PROJ]
CANARY = "canary-tok-7d41e9b0c2"
CANARY_PERSONAL = "canary-pat-5a2c8f1e93"
THRESHOLDS = ["--name", "B", "--block", "0.9", "--challenge", "0.6"]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_request_leaves_an_unfinished_entry(sandbox: SandboxServer) -> None:
    sandbox.faults.configure(hold=True)
    env = dict(os.environ)  # the test's XDG directories (tests/conftest.py)
    env.update(BOTTUI_BASE_URL=sandbox.base_url, BOTTUI_API_KEY=demo_data.DEMO_PROJECT_TOKENS[PROJ])
    proc = subprocess.Popen(
        [sys.executable, "-m", "bottui", "limiter", "disable", "rl-login", *SCOPE],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert sandbox.faults.wait_until_held(1, timeout=30), "the request never arrived"
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=120) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sandbox.faults.release()

    r = cli("journal", "--unfinished", "--json")
    assert r.code == 0, r.err
    (entry,) = r.json()["entries"]
    assert entry["unfinished"] is True and entry["outcome"] is None
    assert entry["operation"] == "limiter.set-active"
    assert entry["target"] == {"rate_limiter_id": "rl-login"}
    assert entry["request_body"] == {"isActive": False}
    assert entry["pid"] == proc.pid
    r = cli("journal")
    assert "UNFINISHED" in r.out and "1 UNFINISHED" in r.err
    # Whether it was applied is not known: undo refuses instead of guessing.
    r = cli("undo", "--yes", "--base-url", sandbox.base_url)
    assert r.code == 2 and "no outcome" in r.err


def _store_files() -> list[Path]:
    locations = Locations.default()
    files = []
    for db in (locations.inventory_file, locations.journal_file):
        files += [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    return [f for f in files if f.exists()]


def test_canary_token_never_reaches_a_database_or_export(
    sandbox: SandboxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox.state.add_project_token(CANARY, ACC, PROJ)  # the canary works for shop-prod
    sandbox.state.add_personal_token(CANARY_PERSONAL, ACC)
    server_key = sandbox.state.project_json(ACC, PROJ)["serverKey"]  # type: ignore[index]
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("BOTTUI_API_KEY", CANARY)
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", CANARY_PERSONAL)
    seed = tmp_path / "team.toml"
    from bottui.demo import inventory_toml

    seed.write_text(inventory_toml(), encoding="utf-8")
    runs = [
        (0, ["inventory", "import", str(seed)]),
        (0, ["limiter", "disable", "rl-login", *SCOPE, "--show-secrets"]),
        (0, ["undo", "--yes"]),
        (0, ["revoke", *SCOPE, "--visitor-id", "vis_7Hq2kP9xLm"]),
        (0, ["thresholds", "set", "bot-score", *SCOPE, *THRESHOLDS]),
        (1, ["limiter", "enable", "rl-api", "--account", ACC, "--project", "shop-staging"]),
        (
            1,
            ["revoke", "--account", demo_data.OTHER_ACCOUNT, "--project", "x", "--visitor-id", "v"],
        ),
    ]
    for code, argv in runs:
        r = cli_process(*argv)
        assert r.code == code, (argv, r.err)
        assert CANARY not in r.out + r.err and CANARY_PERSONAL not in r.out + r.err
    exports = [tmp_path / "journal.jsonl", tmp_path / "journal.csv", tmp_path / "inventory.toml"]
    assert cli_process("journal", "--export", str(exports[0])).code == 0
    assert cli_process("journal", "--export", str(exports[1])).code == 0
    assert cli_process("inventory", "export", str(exports[2])).code == 0
    outcomes = {e["outcome"] for e in cli("journal", "--json").json()["entries"]}
    assert outcomes >= {"ok", "withdrawn", "api-error"}

    files = _store_files() + exports
    assert {f.name for f in files} >= {"inventory.sqlite3", "journal.sqlite3"}
    for path in files:
        data = path.read_bytes()
        assert data, path
        for secret in (CANARY, CANARY_PERSONAL, server_key):
            for encoded in (secret.encode(), secret.encode("utf-16-le")):
                assert encoded not in data, f"{secret} in {path}"
