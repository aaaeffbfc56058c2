"""A crash during a request: Textual's crash report never shows a token.

Textual prints the local variables of every frame of the exception chain
when an app crashes. This runs a real app in a subprocess, makes it crash in
the middle of a change (outside any worker, so nothing catches it) with
canary tokens in the keyring, and searches everything the process printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bottui.sandbox.server import SandboxServer

CANARY_PROJECT = "CANARY_prj_crash_71c2"
CANARY_PERSONAL = "CANARY_pat_crash_0d9e"

SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    from bottui.api.tokens import AccessToken, ProjectToken
    from bottui.demo import prepare
    from bottui.ops import mutations
    from bottui.tui.app import BottuiApp

    root, base_url, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    session = prepare(root, base_url)
    session.tokens.set_project(base_url, "acme", "shop-prod", ProjectToken(sys.argv[4]))
    session.tokens.set_personal(base_url, "acme", AccessToken(sys.argv[5]))

    import bottui.tui.app

    class Crashing(BottuiApp):
        CSS_PATH = str(Path(bottui.tui.app.__file__).parent / "bottui.tcss")

        async def on_mount(self) -> None:
            super().on_mount()
            # Not in a worker: whatever goes wrong crashes the app.
            if mode == "limiter":
                await mutations.set_limiter(session, "acme", "shop-prod", "rl-api", True)
            else:
                await mutations.revoke(session, "acme", "shop-prod", visitor_id="v")

    app = Crashing(session)
    app.run(headless=True)
    sys.exit(app.return_code or 0)
    """
)


@pytest.mark.parametrize(
    "mode, fault",
    [
        ("limiter", {"non_json_next": 1}),
        ("revoke", {"fail_next": 9, "error_status": 503}),
        ("limiter", {"drop_next": 9}),
    ],
)
def test_crash_report_holds_no_token(
    tmp_path: Path, sandbox: SandboxServer, mode: str, fault: dict[str, object]
) -> None:
    sandbox.faults.configure(**fault)  # type: ignore[arg-type]
    script = tmp_path / "crash.py"
    script.write_text(SCRIPT, encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            str(script),
            str(tmp_path / "demo"),
            sandbox.base_url,
            mode,
            CANARY_PROJECT,
            CANARY_PERSONAL,
        ],
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard
        env={**os.environ, "COLUMNS": "120", "LINES": "40"},
    )
    printed = proc.stdout + proc.stderr
    # It really crashed, and the report printed frames with their locals.
    assert proc.returncode != 0, printed[-2000:]
    assert "set_limiter" in printed or "revoke" in printed
    assert "locals" in printed  # frames were printed with their local variables
    assert CANARY_PROJECT not in printed
    assert CANARY_PERSONAL not in printed
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix not in (".py",):
            data = path.read_bytes()
            assert CANARY_PROJECT.encode() not in data, path
            assert CANARY_PERSONAL.encode() not in data, path
