"""CLI start-up cost in CPU, against the targets of #29 (not a test module).

Run from the repository root (pytest does not collect tests/bench)::

    python tests/bench/cli_startup.py [--runs 20] [--base DIR]

Each process is run ``--runs`` times, all of them interleaved (one of each,
then the next round), and its CPU is the user + system time the kernel
charged to it (``getrusage(RUSAGE_CHILDREN)`` around each wait). Bytecode is
compiled first (``compileall``), as an installed package has it. Printed: the
sum over the runs of each process, in milliseconds, and the three ratios of
#29 with their targets:

* ``bottui limiter disable`` against the sandbox on loopback <= 1.15x
  ``python -c 'import httpx, aiohttp'``;
* ``bottui --version`` <= 1.2x ``python -c pass``;
* a Tab (``bottui __complete bash -- limiter enable ''``) answered with the
  inventory's ids <= 2x ``python -c pass``.

Every bottui process runs in a throwaway home (XDG variables) with a profile
``bench`` on the sandbox, a project API token in ``BOTTUI_API_KEY`` (the
keyring is never asked) and an inventory that knows the demo's limiters. On
a busy machine the figures are indicative only: compare ratios, run again.
With ``--base DIR`` (another checkout, e.g. ``git worktree add DIR main``),
each bottui process runs there too, in the same rounds.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.bench.sandbox_process import Sandbox  # noqa: E402

ACCOUNT = "acme"
PROJECT = "shop-prod"
TOKEN = "prj_demo_shop_prod_91ad"  # the sandbox's demo token of shop-prod

#: (label, the baseline it is held against, the target ratio).
TARGETS = [
    ("bottui limiter disable", "python -c 'import httpx, aiohttp'", 1.15),
    ("bottui --version", "python -c pass", 1.2),
    ("Tab with inventory ids", "python -c pass", 2.0),
]


def cpu_ms(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """The user + system CPU of one process, in milliseconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used * 1000


def bottui(root: Path) -> list[str]:
    """The console script next to this interpreter when it runs ``root``, else ``-m``."""
    script = Path(sys.executable).with_name("bottui")
    if root == ROOT and script.exists():
        return [str(script)]
    return [sys.executable, "-m", "bottui"]


def home(base_url: str, where: Path) -> dict[str, str]:
    """A throwaway home with the profile ``bench`` and an inventory: its environment."""
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(where / "config"),
        "XDG_DATA_HOME": str(where / "data"),
        "XDG_STATE_HOME": str(where / "state"),
        "XDG_CACHE_HOME": str(where / "cache"),
        "BOTTUI_API_KEY": TOKEN,
    }
    scope = ["--account", ACCOUNT, "--project", PROJECT]
    for words in (
        ["profile", "add", "bench", "--base-url", base_url, *scope],
        ["profile", "use", "bench"],
        ["limiter", "enable", "rl-login", "--yes"],  # the inventory learns the project
    ):
        subprocess.run(
            [sys.executable, "-m", "bottui", *words],
            env=env,
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return env


def jobs(roots: dict[str, Path], env: dict[str, str]) -> dict[str, Callable[[], float]]:
    """Every process measured, by label (bottui's once per checkout)."""
    python = sys.executable
    found: dict[str, Callable[[], float]] = {
        "python -c pass": lambda: cpu_ms([python, "-c", "pass"], env, ROOT),
        "python -c 'import httpx, aiohttp'": lambda: cpu_ms(
            [python, "-c", "import httpx, aiohttp"], env, ROOT
        ),
    }
    commands = {
        "bottui limiter disable": ["limiter", "disable", "rl-login", "--yes"],
        "bottui --version": ["--version"],
        "Tab with inventory ids": ["__complete", "bash", "--", "limiter", "enable", ""],
    }
    for name, root in roots.items():
        suffix = "" if name == "this" else f" ({name})"
        for label, words in commands.items():
            argv = [*bottui(root), *words]
            found[label + suffix] = lambda argv=argv, root=root: cpu_ms(argv, env, root)
    return found


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=20)
    options.add_argument("--base", type=Path, help="another checkout to compare with")
    parsed = options.parse_args()
    roots = {"this": ROOT} if parsed.base is None else {"this": ROOT, "base": parsed.base}
    for root in roots.values():
        compileall.compile_dir(root / "bottui", quiet=1)
    sandbox = Sandbox(0.0)
    try:
        with tempfile.TemporaryDirectory() as where:
            env = home(sandbox.base_url, Path(where))
            measured = jobs(roots, env)
            for job in measured.values():
                job()  # warm the file cache
            sums = dict.fromkeys(measured, 0.0)
            for _ in range(parsed.runs):
                for label, job in measured.items():
                    sums[label] += job()
    finally:
        sandbox.stop()
    for label, total in sums.items():
        print(f"{label:45} {total:9.1f} ms CPU in {parsed.runs} runs")
    print()
    for name in roots:
        suffix = "" if name == "this" else f" ({name})"
        for label, baseline, target in TARGETS:
            ratio = sums[label + suffix] / sums[baseline]
            verdict = "ok" if ratio <= target else "OVER"
            print(f"{label + suffix:45} {ratio:5.2f}x of {baseline} (target {target}x) {verdict}")


if __name__ == "__main__":
    main()
