"""Issue #5: the ``curl`` a ``--dry-run`` prints, run by bash, sends the very request
bottui sends (method, raw path, body), for hostile ids, for every command."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from bottui.sandbox import demo_data
from bottui.sandbox.server import SandboxServer
from tests.bulk.conftest import logged
from tests.cli.helpers import cli
from tests.fixtures.sandbox import PROJ, scope

pytestmark = pytest.mark.skipif(
    shutil.which("curl") is None or shutil.which("bash") is None, reason="needs curl and bash"
)

HOSTILE_IDS = [
    'it\'s "quoted"',
    "with space",
    "a/b",
    "$HOME",
    "`id`",
    "back\\slash",
    "%2F%2E%2E",
    "ünï©ødé",
    "semi;colon & amp | pipe",
    "!bang*glob?[x]{a,b}",
]

Sent = tuple[str, str, bytes]


def replay(curl: str) -> None:
    """Run the printed command with bash, tokens in its environment only."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "BOTTUI_ACCESS_TOKEN": demo_data.DEMO_ACCESS_TOKEN,
        "BOTTUI_API_KEY": demo_data.DEMO_PROJECT_TOKENS[PROJ],
    }
    done = subprocess.run(["bash", "-c", curl], env=env, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr


def last(sandbox: SandboxServer, count: int = 1) -> list[Sent]:
    records = logged(sandbox)[-count:]
    return [(r.method, r.raw_path, r.body) for r in records]


def printed(request: dict[str, Any]) -> Sent:
    return request["method"], urlsplit(request["url"]).path, request["body"].encode()


def dry_run(*argv: str) -> list[dict[str, Any]]:
    r = cli(*argv, "--dry-run", "--json")
    assert r.code == 0, r.err
    requests: list[dict[str, Any]] = r.json()["requests"]
    return requests


SINGLE_SHOT = [
    pytest.param(["limiter", "disable", 'rl "x" /y z'], id="limiter-disable"),
    pytest.param(["limiter", "enable", "rl-search"], id="limiter-enable"),
    pytest.param(
        ["revoke", "--visitor-id", 'v "q" /x y', "--user-account-id", "u'1 $HOME"],
        id="revoke",
    ),
    pytest.param(["revoke", "--visitor-id", "vis_7Hq2kP9xLm"], id="revoke-standing"),
    pytest.param(
        [
            "thresholds",
            "set",
            "dim 'q' /s %2E%2E",
            "--name",
            'N "q" $x',
            "--block",
            "0.50",
            "--challenge",
            "0.123456789",
        ],
        id="thresholds",
    ),
    pytest.param(
        [
            "thresholds",
            "set",
            "bot-score",
            "--name",
            "Bot score",
            "--block",
            "0.9",
            "--challenge",
            "0.4",
        ],
        id="thresholds-existing",
    ),
]


@pytest.mark.parametrize("argv", SINGLE_SHOT)
@pytest.mark.parametrize("project", [PROJ, 'p "q"/x y'])
def test_single_shot_curl_sends_the_same_request(
    env: SandboxServer, argv: list[str], project: str
) -> None:
    where = scope(project)
    [request] = dry_run(*argv, *where)
    assert "$BOTTUI_" in request["curl"]
    assert demo_data.DEMO_ACCESS_TOKEN not in request["curl"]
    assert env.stats.requests == 0  # the dry run sent nothing
    replay(request["curl"])
    [by_curl] = last(env)
    assert by_curl == printed(request)
    cli(*argv, *where)  # the real command (404s are fine: the request is what counts)
    [by_bottui] = last(env)
    assert by_curl == by_bottui


def test_text_dry_run_curl_is_the_same_too(env: SandboxServer) -> None:
    r = cli("limiter", "disable", 'rl "x" /y z', *scope(), "--dry-run")
    [curl] = [line for line in r.out.splitlines() if line.startswith("curl ")]
    replay(curl)
    [by_curl] = last(env)
    cli("limiter", "disable", 'rl "x" /y z', *scope())
    assert last(env) == [by_curl]


@pytest.mark.parametrize("as_json", [True, False])
def test_bulk_curls_send_the_same_requests(
    env: SandboxServer, ids_file: Callable[..., Path], as_json: bool
) -> None:
    csv_lines = ["visitorId,userAccountId"]
    for n, ident in enumerate(HOSTILE_IDS):
        quoted = '"' + ident.replace('"', '""') + '"'
        csv_lines.append(f"{quoted}," if n % 2 else f"{quoted},{quoted}")
    path = ids_file(csv_lines, name="ids.csv")
    argv = ["revoke", "--from-file", str(path), *scope()]
    if as_json:
        curls = [request["curl"] for request in dry_run(*argv)]
    else:
        r = cli(*argv, "--dry-run")
        assert r.code == 0
        curls = [line for line in r.out.splitlines() if line.startswith("curl ")]
    assert len(curls) == len(HOSTILE_IDS)
    for curl in curls:
        replay(curl)
    by_curl = sorted(last(env, len(curls)))
    assert cli(*argv).code == 0
    by_bottui = sorted(last(env, len(curls)))
    assert by_curl == by_bottui
    bodies = b"".join(body for _, _, body in by_curl)
    for ident in HOSTILE_IDS:  # each id arrived exactly as written in the file
        assert ident.replace("\\", "\\\\").replace('"', '\\"').encode() in bodies
