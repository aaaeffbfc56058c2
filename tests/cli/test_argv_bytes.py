"""Bytes that are not UTF-8 on the command line or in ``BOTTUI_*``: one clear refusal, exit 2.

Real processes given real bytes (``subprocess`` passes ``bytes`` argv and
environment values through unchanged), so Python's own ``surrogateescape``
decoding is what bottui sees, as it is from a shell's ``$'p\\xff'``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bottui.cli.argv_text import NotUtf8Error, check_command_line, shown
from bottui.sandbox.server import SandboxServer
from tests.fixtures.sandbox import ACC, PROJ


def run_bytes(
    *argv: str | bytes, env: dict[bytes, bytes] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``python -m bottui argv`` with argv and environment passed as bytes."""
    full_env = dict(os.environb)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bottui", *argv],
        capture_output=True,
        env=full_env,
        stdin=subprocess.DEVNULL,
        timeout=300,  # a hang guard
    )


def one_error_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    err = proc.stderr.decode("utf-8")
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    return lines[0]


def test_profile_name_not_utf8_is_refused_and_nothing_written(isolated_home: Path) -> None:
    proc = run_bytes("profile", "add", b"p\xff", "--base-url", "http://127.0.0.1:1")
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "argument 3 is not valid UTF-8" in line and "p\\xff" in line
    assert proc.stdout == b""
    assert not (isolated_home / "config" / "bottui" / "config.toml").exists()


def test_project_not_utf8_sends_nothing(sandbox: SandboxServer) -> None:
    proc = run_bytes(
        "revoke",
        "--base-url",
        sandbox.base_url,
        "--account",
        ACC,
        "--project",
        b"\xff",
        "--visitor-id",
        "v",
        env={b"BOTTUI_ACCESS_TOKEN": b"pat_demo_acme_4c1f9e2b7a"},
    )
    assert proc.returncode == 2
    assert "\\xff" in one_error_line(proc)
    assert sandbox.stats.requests == 0


def test_json_mode_prints_the_error_document() -> None:
    proc = run_bytes("journal", "--json", "--project", b"a\xfe\xffb")
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert doc["error"]["code"] == "NotUtf8Error"
    assert "a\\xfe\\xffb" in doc["error"]["message"]
    assert "Traceback" not in proc.stderr.decode()


def test_escape_bytes_in_the_bad_argument_are_not_echoed_raw() -> None:
    proc = run_bytes("profile", "use", b"\x1b]0;pwned\x07\xff")
    assert proc.returncode == 2
    assert b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr
    one_error_line(proc)


@pytest.mark.parametrize("name", [b"BOTTUI_BASE_URL", b"BOTTUI_ACCESS_TOKEN", b"BOTTUI_API_KEY"])
def test_bottui_variable_not_utf8_is_refused_without_its_value(
    sandbox: SandboxServer, name: bytes
) -> None:
    proc = run_bytes(
        "limiter",
        "enable",
        "rl-api",
        "--base-url",
        sandbox.base_url,
        "--account",
        ACC,
        "--project",
        PROJ,
        env={name: b"secret\xffvalue"},
    )
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert name.decode() in line
    assert "secret" not in line
    assert sandbox.stats.requests == 0


def test_shown_escapes_bytes_and_lone_surrogates() -> None:
    assert shown("p\udcff") == "p\\xff"
    assert shown("x\ud800") == "x\\ud800"
    assert len(shown("\udcff" * 500)) <= 60


def test_valid_text_passes() -> None:
    check_command_line(["profile", "add", "café-ü", "--project", "日本"], {"BOTTUI_X": "ok"})
    with pytest.raises(NotUtf8Error):
        check_command_line(["ok"], {"BOTTUI_PROFILE": "\udcff"})
