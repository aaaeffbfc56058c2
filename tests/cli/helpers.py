"""Run the CLI in-process or as a real subprocess, capturing what it prints."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bottui.cli import run
from bottui.cli.output import Output
from bottui.store.files import Locations


@dataclass
class Result:
    """Exit code and output of one CLI run."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def cli(*argv: str, stdin: str | None = None) -> Result:
    """Run ``bottui argv`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        code = run(list(argv), Output("--json" in argv, out, err))
    finally:
        sys.stdin = old_stdin
    return Result(code, out.getvalue(), err.getvalue())


def write_config(text: str) -> Path:
    """Make the default config.toml hold ``text``; its path."""
    path = Locations.default().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def cli_process(
    *argv: str, env: dict[str, str] | None = None, stdin: str = "", timeout: float = 300
) -> Result:
    """Run ``python -m bottui argv`` as a real process."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "bottui", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)
