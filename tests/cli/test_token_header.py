"""The ``X-Api-Key`` value: a token with CR/LF is refused before sending (exit 3), and a
profile's ``token_encoding = "base64"`` sends both kinds Base64-encoded (the real service).

The sandbox checks tokens as they arrive: with the raw tokens removed and their Base64
forms added, only a request that sent the Base64 form is accepted.
"""

from __future__ import annotations

import base64
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from bottui.api.errors import EXIT_CREDENTIALS
from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_PROJECT_TOKENS
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from tests.cli.helpers import cli, write_config
from tests.fixtures.sandbox import ACC, PROJ, scope

PROJECT_TOKEN = DEMO_PROJECT_TOKENS[PROJ]


def b64(token: str) -> str:
    return base64.b64encode(token.encode("utf-8")).decode("ascii")


def base64_profile(base_url: str) -> None:
    write_config(
        f'current = "real"\n\n[profiles.real]\nbase_url = "{base_url}"\ntoken_encoding = "base64"\n'
    )


def changes(tmp_path: Path) -> list[tuple[str, ...]]:
    ids = tmp_path / "ids.txt"
    ids.write_text("vis_1\nvis_2\n", encoding="utf-8")
    thresholds = ("--name", "Bot score", "--block", "0.9", "--challenge", "0.5")
    return [
        ("limiter", "disable", "rl-login", *scope()),
        ("revoke", "--visitor-id", "vis_7Hq2kP9xLm", *scope()),
        ("thresholds", "set", "bot-score", *scope(), *thresholds),
        ("revoke", "--from-file", str(ids), *scope()),
    ]


@pytest.mark.parametrize("encoding", ["raw", "base64"])
@pytest.mark.parametrize("bad", ["\r\n", "\n", "\r", "\x1b"])
def test_a_token_with_a_line_break_is_refused_before_sending(
    env: SandboxServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    encoding: str,
    bad: str,
) -> None:
    if encoding == "base64":
        base64_profile(env.base_url)
    monkeypatch.setenv("BOTTUI_API_KEY", f"{PROJECT_TOKEN}{bad}X-Injected: 1")
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", f"{DEMO_ACCESS_TOKEN}{bad}X-Injected: 1")
    for argv in changes(tmp_path):
        done = cli(*argv)
        assert done.code == EXIT_CREDENTIALS, (argv, done.err)
        assert "Unusable" in done.err and "nothing was sent" in done.err
        assert "may have been applied" not in done.err
    assert env.state.recorder.log == []
    with Journal.at(Locations.default()) as journal:
        assert journal.entries() == []  # refused before the journal: nothing started


def test_token_set_refuses_a_token_holding_a_carriage_return(env: SandboxServer) -> None:
    done = cli("token", "set", "personal", "--account", ACC, stdin="pat_abc\rdefgh\n")
    assert done.code == EXIT_CREDENTIALS
    assert "line break" in done.err
    status = cli("token", "status", "--account", ACC, "--project", PROJ, "--json")
    assert "pat_abc" not in status.out


def test_base64_encoding_sends_both_kinds_base64(env: SandboxServer, tmp_path: Path) -> None:
    env.state.remove_token(PROJECT_TOKEN)
    env.state.remove_token(DEMO_ACCESS_TOKEN)
    env.state.add_project_token(b64(PROJECT_TOKEN), ACC, PROJ, label="b64")
    env.state.add_personal_token(b64(DEMO_ACCESS_TOKEN), ACC, label="b64")
    refused = cli("limiter", "disable", "rl-login", *scope())
    assert refused.code == 1 and "401" in refused.err  # raw: the service says no
    base64_profile(env.base_url)
    for argv in changes(tmp_path):
        done = cli(*argv)
        assert done.code == 0, (argv, done.err)
    assert all(r.status == 200 for r in env.state.recorder.log[1:])
    assert len(env.state.recorder.log) == 6


def test_the_dry_run_curl_encodes_as_it_would_send(env: SandboxServer) -> None:
    base64_profile(env.base_url)
    env.state.remove_token(PROJECT_TOKEN)
    env.state.add_project_token(b64(PROJECT_TOKEN), ACC, PROJ, label="b64")
    dry = cli("limiter", "disable", "rl-login", *scope(), "--dry-run")
    assert dry.code == 0
    assert '$(printf %s "$BOTTUI_API_KEY" | base64' in dry.out
    assert PROJECT_TOKEN not in dry.out and b64(PROJECT_TOKEN) not in dry.out
    [command] = [line for line in dry.out.splitlines() if line.startswith("curl ")]
    # The copied command is true: run by a shell, it sends what bottui would.
    ran = subprocess.run(
        ["bash", "-c", command.replace("curl ", "curl -w ' %{http_code}' ", 1)],
        env={**os.environ, "BOTTUI_API_KEY": PROJECT_TOKEN},
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard
        check=False,
    )
    assert ran.stdout.rstrip().endswith(" 200"), (shlex.quote(command), ran.stdout, ran.stderr)


def test_doctor_names_the_setting_once_beside_an_authentication_error(
    env: SandboxServer,
) -> None:
    done = cli("doctor", "--json", *scope())
    detail = {c["id"]: c for c in done.json()["checks"]}["api"]["detail"]
    assert detail.count("token_encoding") == 2  # once as it is, once as the remedy
    assert 'token_encoding = "base64"' in detail
    base64_profile(env.base_url)
    detail = {c["id"]: c for c in cli("doctor", "--json").json()["checks"]}["api"]["detail"]
    assert 'token_encoding = "base64"' in detail and 'try token_encoding = "raw"' in detail
