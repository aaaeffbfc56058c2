"""Start-up speed: time to the first frame in a real pseudo-terminal.

Runs, in the same session, the smallest possible Textual app (one Static)
and ``bottui demo``, each several times, and prints the median time from
spawning the process to the moment its first frame's text reaches the
terminal. Goal (issue #4): ``bottui demo`` within 1.3x of the smallest app.
The ratio of the medians is the figure; the median of each round's own
ratio is printed beside it, as a check on a noisy machine.

A third app shows the floor of that ratio: the widgets of bottui's first
screen (its stylesheet, a DataTable of four limiters, the text lines, the
same thirteen key bindings shown on one line, as bottui's key bar does),
started the same way (as the app's first mode), with no bottui code at all.
A fourth is plain ``bottui`` on a saved profile whose inventory holds the
demo's projects (nothing is sent at start).

    python tests/bench/startup.py [--runs 21]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.pty_terminal import Terminal  # noqa: E402

MINIMAL_APP = """
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("first-frame-marker")

Minimal().run()
"""

SAME_WIDGETS_APP = """
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

KEYS = "t o f a x 1 2 3 4 5 question_mark q ctrl+p".split()


class Limiters(Screen):
    BINDINGS = [Binding(key, "app.bell", f"Key {key}") for key in KEYS]

    def compose(self):
        yield Static("demo - http://127.0.0.1:8765 - acme / shop-prod (Shop (production))")
        yield Static("Rate limiters - acme / shop-prod (Shop (production))")
        yield DataTable()
        yield Static("response: the service's answer listed it - request: the state we sent")
        yield Static(" space Toggle  o Enable  f Disable  a Add id  x Forget id  1-6 Screens")

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("ID", "Name", "State", "Known at (UTC)", "How we know")
        for row in range(4):
            table.add_row(f"rl-{row}", "Limiter", "ON", "2026-11-22 00:43:39", "file")


class SameWidgets(App):
    CSS_PATH = CSS
    MODES = {"limiters": Limiters}
    DEFAULT_MODE = "limiters"


SameWidgets().run()
"""


def first_frame_seconds(
    argv: list[str], marker: bytes, timeout: float = 20.0, extra_env: dict[str, str] | None = None
) -> float:
    """Seconds from spawn until ``marker`` is on the terminal; the process is then killed."""
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30", **(extra_env or {}))
    env.pop("NO_COLOR", None)
    # A user's install has bytecode (pip compiles it; an editable install
    # writes it on first import). With PYTHONDONTWRITEBYTECODE set, as on some
    # CI machines, our editable sources would be compiled on every start while
    # Textual's (pip-compiled) would not: an unfair handicap, not start-up.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    terminal = Terminal(argv, env=env)
    try:
        terminal.wait_for(marker.decode(), timeout)
        return time.perf_counter() - started
    finally:
        terminal.kill()


def saved_profile(home: Path) -> dict[str, str]:
    """XDG variables of a home whose profile and inventory match the demo's (no keyring read)."""
    env = {f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("CONFIG", "DATA", "STATE")}
    run_env = dict(os.environ, **env)
    seed = home / "inventory.toml"
    from bottui.demo import inventory_toml

    seed.write_text(inventory_toml(), encoding="utf-8")
    bottui = [sys.executable, "-m", "bottui"]
    common = ["--base-url", "http://127.0.0.1:9", "--account", "acme", "--project", "shop-prod"]
    for command in (["profile", "add", "bench", *common], ["inventory", "import", str(seed)]):
        subprocess.run([*bottui, *command], env=run_env, check=True, stdout=subprocess.DEVNULL)
    return env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    python = sys.executable
    css = ROOT / "bottui" / "tui" / "bottui.tcss"
    same_widgets = f"CSS = {str(css)!r}\n" + SAME_WIDGETS_APP
    with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
        profile_env = saved_profile(Path(tmp))
        cases: dict[str, tuple[list[str], bytes, dict[str, str]]] = {
            "smallest Textual app": ([python, "-c", MINIMAL_APP], b"first-frame-marker", {}),
            "same widgets, no bottui": ([python, "-c", same_widgets], b"shop-prod", {}),
            "bottui demo": ([python, "-m", "bottui", "demo"], b"shop-prod", {}),
            "bottui, saved profile": ([python, "-m", "bottui"], b"shop-prod", profile_env),
        }
        # Warm the OS page cache and .pyc files once, untimed.
        for argv, marker, env in cases.values():
            first_frame_seconds(argv, marker, extra_env=env)
        results: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (argv, marker, env) in cases.items():  # interleaved: same conditions
                results[name].append(first_frame_seconds(argv, marker, extra_env=env))
    medians = {name: statistics.median(times) for name, times in results.items()}
    for name, times in results.items():
        print(
            f"{name:<24} median {medians[name] * 1000:7.0f} ms   "
            f"min {min(times) * 1000:5.0f}   max {max(times) * 1000:5.0f}   (n={len(times)})"
        )
    smallest = medians["smallest Textual app"]
    floor = medians["same widgets, no bottui"] / smallest
    ratio = medians["bottui demo"] / smallest
    saved = medians["bottui, saved profile"] / smallest
    print(f"ratio same widgets / smallest app:   {floor:.2f} (the floor for this first screen)")
    print(f"ratio bottui demo / smallest app:    {ratio:.2f} (goal <= 1.30)")
    print(f"ratio bottui (profile) / smallest:   {saved:.2f}")
    # The same ratios per round (each case over the smallest app of its own
    # round), then their median: a slow spell of a shared machine slows every
    # case of a round alike, so these move less from run to run.
    for name in ("bottui demo", "bottui, saved profile"):
        paired = statistics.median(
            case / base
            for case, base in zip(results[name], results["smallest Textual app"], strict=True)
        )
        print(f"median of per-round ratios, {name + ':':<22} {paired:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
