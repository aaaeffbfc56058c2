"""No keyring, or a hung one: a clear message naming the remedies, exit 3, within 5 s.

Real processes with real keyring backend classes chosen the way a user
would (``PYTHON_KEYRING_BACKEND``): keyring's own fail backend, and a
backend whose calls block like a D-Bus activation that never answers.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli_process
from tests.fixtures.sandbox import scope

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "backend",
    ["keyring.backends.fail.Keyring", "tests.fixtures.keyrings.BlockingKeyring"],
)
@pytest.mark.parametrize(
    "argv",
    [
        ["revoke", *scope(), "--visitor-id", "v"],
        ["limiter", "enable", "rl-api", *scope()],
        ["token", "status", *scope()],
    ],
)
def test_no_usable_keyring_exits_3_quickly(
    sandbox: SandboxServer, backend: str, argv: list[str]
) -> None:
    env = {
        "BOTTUI_BASE_URL": sandbox.base_url,
        "PYTHON_KEYRING_BACKEND": backend,
        "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    started = time.monotonic()
    r = cli_process(*argv, env=env, timeout=30)
    elapsed = time.monotonic() - started
    assert r.code == 3, (r.out, r.err)
    assert elapsed < 5, f"took {elapsed:.1f} s"
    assert "Traceback" not in r.err
    assert "BOTTUI_ACCESS_TOKEN" in r.err and "dbus-run-session" in r.err
    assert sandbox.stats.requests == 0


def test_environment_token_works_without_a_keyring(sandbox: SandboxServer) -> None:
    env = {
        "BOTTUI_BASE_URL": sandbox.base_url,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "BOTTUI_ACCESS_TOKEN": "pat_demo_acme_4c1f9e2b7a",
    }
    r = cli_process(
        "revoke",
        "--account",
        "acme",
        "--project",
        "shop-prod",
        "--visitor-id",
        "vis_7Hq2kP9xLm",
        env=env,
    )
    assert r.code == 0, r.err
    assert "withdrawn" in r.out
