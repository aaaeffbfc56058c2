"""The canary of #25: under every hostile mode of the sandbox, neither the project's serverKey
nor either token (in any form a server may echo it) reaches stdout, stderr or any file bottui
wrote: the config, the journal and inventory (their raw bytes, WAL included), exports,
``--output`` results.

Each mode runs the changes (limiter, revoke, thresholds, a playbook, a bulk run, a timed
revert by ``run-due``, undo) and the readers (journal, inventory, their exports), with the
echo tokens in the environment so ``token_echo`` sends them back.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from bottui.api.tokens import token_forms
from bottui.sandbox.faults import BODY_KINDS, HOSTILE_KINDS
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import Result, cli
from tests.fixtures.hostile import (
    ECHO_ACCESS_TOKEN,
    ECHO_PROJECT_TOKEN,
    add_echo_tokens,
    every_form,
)
from tests.fixtures.sandbox import ACC, PROJ, scope

#: (hostile kind or None, hostileStatus, hostileBody or None)
MODES: list[tuple[str | None, int, str | None]] = [
    *[(kind, 0, None) for kind in HOSTILE_KINDS],
    *[(kind, 400, None) for kind in HOSTILE_KINDS],
    (None, 401, None),
    (None, 500, None),
    *[("token_echo", 0, body) for body in BODY_KINDS],
    *[(None, 0, body) for body in BODY_KINDS],
]
BOOK = '[[steps]]\nlimiter = "rl-api"\naction = "disable"\n'


def _mode_id(mode: tuple[str | None, int, str | None]) -> str:
    kind, status, body = mode
    return "-".join(str(part) for part in (kind or "plain", status, body or "json"))


def secrets_of(sandbox: SandboxServer) -> list[str]:
    project = sandbox.state.project_json(ACC, PROJ)
    assert project is not None
    key = project["serverKey"]
    forms = {key, *every_form(ECHO_ACCESS_TOKEN, ECHO_PROJECT_TOKEN)}
    for token in (ECHO_ACCESS_TOKEN, ECHO_PROJECT_TOKEN):
        forms |= token_forms(token)
    return sorted(forms)


def _at(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).isoformat()


def written_files(*roots: Path) -> list[Path]:
    return [
        Path(folder) / name
        for root in roots
        for folder, _, names in os.walk(root)
        for name in names
        if not (Path(folder) / name).is_symlink()
    ]


@pytest.fixture
def echo_env(sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> SandboxServer:
    add_echo_tokens(sandbox)
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", ECHO_ACCESS_TOKEN)
    monkeypatch.setenv("BOTTUI_API_KEY", ECHO_PROJECT_TOKEN)
    return sandbox


@pytest.mark.parametrize("mode", MODES, ids=_mode_id)
def test_no_secret_anywhere_under_any_hostile_mode(
    echo_env: SandboxServer,
    tmp_path: Path,
    isolated_home: Path,
    mode: tuple[str | None, int, str | None],
) -> None:
    kind, status, body = mode
    # Set-up, no faults: known states, a timed change to revert, a playbook.
    for argv in (("limiter", "enable", "rl-search"), ("limiter", "enable", "rl-api")):
        assert cli(*argv, *scope()).code == 0
    assert cli("limiter", "disable", "rl-search", "--for", "10m", *scope()).code == 0
    books = Path(platformdirs.user_config_dir("bottui")) / "playbooks"
    books.mkdir(parents=True, exist_ok=True)
    (books / "off.toml").write_text(BOOK, encoding="utf-8")
    ids = tmp_path / "ids.txt"
    ids.write_text("vis_7Hq2kP9xLm\nvis_other_1\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()

    settings: dict[str, Any] = {"hostile": kind or "off", "hostile_status": status}
    settings["hostile_body"] = body or "off"
    echo_env.faults.configure(**settings)
    thresholds = ("--name", "Bot score", "--block", "0.9", "--challenge", "0.5")
    runs: list[Result] = []
    for as_json in ((), ("--json",)):
        runs += [
            cli("limiter", "disable", "rl-login", *scope(), *as_json),
            cli("revoke", "--visitor-id", "vis_7Hq2kP9xLm", *scope(), *as_json),
            cli("thresholds", "set", "bot-score", *scope(), *thresholds, *as_json),
            cli("playbook", "run", "off", "--yes", *scope(), *as_json),
        ]
    runs += [
        cli("revoke", "--from-file", str(ids), *scope(), "--output", str(out / "r.csv")),
        cli(
            "revoke",
            "--from-file",
            str(ids),
            *scope(),
            "--output",
            str(out / "r.jsonl"),
            "--force",
            "--json",
        ),
        cli("run-due", "--now", _at(timedelta(minutes=11)), *scope()),
        cli("undo", "--yes", *scope()),
        cli("journal"),
        cli("journal", "--json", "--show-secrets"),
        cli("journal", "--export", str(out / "j.jsonl")),
        cli("journal", "--export", str(out / "j.csv")),
        cli("inventory", "list"),
        cli("inventory", "list", "--json"),
        cli("inventory", "export", str(out / "inventory.toml")),
    ]
    echo_env.faults.reset()
    forbidden = secrets_of(echo_env)
    leaks = [
        (n, form) for n, run in enumerate(runs) for form in forbidden if form in run.out + run.err
    ]
    assert not leaks, leaks
    assert all("Traceback" not in run.err for run in runs)
    files = written_files(isolated_home, out)
    assert any(f.name == "journal.sqlite3" for f in files) and (out / "j.jsonl").exists()
    raw = {path: path.read_bytes() for path in files}
    leaked_files = [
        (str(path), form)
        for path, data in raw.items()
        for form in forbidden
        if form.encode("utf-8", "surrogatepass") in data
    ]
    assert not leaked_files, leaked_files
