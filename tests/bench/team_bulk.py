"""#13 bulk at team scale: a bulk run journaling to SQLite alone vs with the push to PostgreSQL.

Run it as a script (pytest does not collect tests/bench); sizes are arguments::

    python tests/bench/team_bulk.py rate   [--ids 20000] [--concurrency 64] [--latency 0.05]
                                           [--reason TEXT]
    python tests/bench/team_bulk.py whole  [--ids 1000000] [--concurrency 64] [--latency 0]
    python tests/bench/team_bulk.py single [--changes 20]

A PostgreSQL of its own is started as the tests start theirs
(``tests/fixtures/postgres.py``), data under /tmp, removed at the end; the
sandbox runs in a process of its own (``tests/bench/sandbox_process.py``).
Each run is ``python -m bottui revoke --from-file`` as a process of its own,
timed spawn to exit, with a fresh home (its own local journal) and, for the
team runs, a fresh migrated database named by ``BOTTUI_STORE_URL``.

* ``rate``: rounds of (SQLite alone, with the push), interleaved on one
  sandbox; ids per second of each and their ratio (goal: >= 90%), and how
  many of the ids' entries and outcomes were in PostgreSQL when the process
  exited (the rest goes with ``bottui store sync``, run after, and counted).
* ``whole``: one team run of ``--ids`` ids; then ``bottui store sync``; every
  id's entry and outcome in PostgreSQL exactly once (goal: all of them).
* ``single``: ``bottui limiter disable/enable`` one after the other, without
  and with a store: median wall seconds per command (the push at the end
  included), and seconds from the command's exit to its entry in PostgreSQL.
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
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from bottui.sandbox.demo_data import DEMO_ACCESS_TOKEN, DEMO_ACCOUNT  # noqa: E402
from tests.bench.bulk_scale import environment, load, measured, write_ids  # noqa: E402
from tests.bench.sandbox_process import Sandbox  # noqa: E402
from tests.fixtures.postgres import PostgresServer, _own_server, _teardown  # noqa: E402

PROJECT = "shop-prod"


def team_database(server: PostgresServer) -> str:
    """A fresh database, migrated; its admin URL."""
    url = server.admin_url(server.new_database())
    done = subprocess.run(
        [sys.executable, "-m", "bottui", "store", "migrate"],
        env={**os.environ, "BOTTUI_STORE_URL": url, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"migrate failed: {done.stderr}")
    return url


def counts(url: str) -> tuple[int, int, int]:
    """Entries, distinct event ids, outcomes in the shared journal."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM bottui.journal_entries),"
            " (SELECT count(DISTINCT (origin, local_id)) FROM bottui.journal_entries),"
            " (SELECT count(*) FROM bottui.journal_outcomes)"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def revoke(
    sandbox: Sandbox,
    ids: Path,
    home: Path,
    concurrency: int,
    store: str | None,
    reason: str | None = None,
) -> dict[str, Any]:
    argv = [
        sys.executable, "-m", "bottui", "revoke", "--from-file", str(ids),
        "--base-url", sandbox.base_url, "--account", DEMO_ACCOUNT, "--project", PROJECT,
        "--concurrency", str(concurrency), "--json",
    ]  # fmt: skip
    if reason is not None:
        # every id's shared entry then carries it: the reason index's worst case
        argv += ["--reason", reason]
    env = environment(home)
    if store is not None:
        env["BOTTUI_STORE_URL"] = store
    run = measured(argv, env)
    if run["code"] != 0:
        raise RuntimeError(f"the run failed: exit {run['code']}")
    return run


def sync(home: Path, store: str) -> float:
    env = {**environment(home), "BOTTUI_STORE_URL": store}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bottui", "store", "sync"], env=env, capture_output=True, check=True
    )
    return time.perf_counter() - started


def rate(args: argparse.Namespace, server: PostgresServer) -> None:
    n, c, lat = args.ids, args.concurrency, args.latency
    print(f"bulk rate, {n:,} ids, concurrency {c}, latency {lat * 1000:g} ms, load {load()}")
    sandbox = Sandbox(lat)
    alone: list[float] = []
    team: list[float] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            work = Path(tmp)
            ids = work / "ids.txt"
            write_ids(ids, n)
            for r in range(args.rounds):
                sandbox.reset()
                a = revoke(sandbox, ids, work / f"alone-{r}", c, None, args.reason)
                sandbox.reset()
                url = team_database(server)
                t = revoke(sandbox, ids, work / f"team-{r}", c, url, args.reason)
                at_exit = counts(url)
                took = sync(work / f"team-{r}", url)
                after = counts(url)
                alone.append(n / a["wall"])
                team.append(n / t["wall"])
                print(
                    f"  round {r + 1}: SQLite alone {alone[-1]:,.0f}/s ({a['cpu']:.1f} CPU-s)"
                    f" | with the push {team[-1]:,.0f}/s ({t['cpu']:.1f} CPU-s):"
                    f" {team[-1] / alone[-1]:.0%}; in PostgreSQL at exit {at_exit[0]:,}"
                    f" entries / {at_exit[2]:,} outcomes, after store sync ({took:.1f} s)"
                    f" {after[0]:,} / {after[2]:,} (distinct {after[1]:,}); load {load()}"
                )
    finally:
        sandbox.stop()
    ratios = [t / a for a, t in zip(alone, team, strict=True)]
    a_med, t_med = statistics.median(alone), statistics.median(team)
    print(
        f"median: SQLite alone {a_med:,.0f}/s, with the push {t_med:,.0f}/s: {t_med / a_med:.0%}"
        f" (per round: {', '.join(f'{x:.0%}' for x in ratios)}; goal >= 90%)"
    )


def whole(args: argparse.Namespace, server: PostgresServer) -> None:
    n = args.ids
    print(f"whole, {n:,} ids, concurrency {args.concurrency}, load {load()}")
    sandbox = Sandbox(args.latency)
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            work = Path(tmp)
            ids = work / "ids.txt"
            write_ids(ids, n)
            url = team_database(server)
            t = revoke(sandbox, ids, work / "team", args.concurrency, url)
            at_exit = counts(url)
            took = sync(work / "team", url)
            after = counts(url)
    finally:
        sandbox.stop()
    print(
        f"  run: {t['wall']:.1f} s ({n / t['wall']:,.0f}/s, peak RSS {t['rss']:.0f} MB);"
        f" at exit {at_exit[0]:,} entries / {at_exit[2]:,} outcomes in PostgreSQL;"
        f" store sync {took:.1f} s; then {after[0]:,} entries ({after[1]:,} distinct),"
        f" {after[2]:,} outcomes: {'WHOLE' if after == (n, n, n) else 'NOT WHOLE'}"
    )


def single(args: argparse.Namespace, server: PostgresServer) -> None:
    print(f"single changes, {args.changes} per side, load {load()}")
    sandbox = Sandbox(0.0)
    try:
        with tempfile.TemporaryDirectory(prefix="bottui-bench-") as tmp:
            work = Path(tmp)
            url = team_database(server)
            walls: dict[str, list[float]] = {"alone": [], "team": []}
            for k in range(args.changes):
                for side in ("alone", "team"):
                    env = environment(work / side)
                    env["BOTTUI_API_KEY"] = _project_token()
                    if side == "team":
                        env["BOTTUI_STORE_URL"] = url
                    verb = "disable" if k % 2 == 0 else "enable"
                    run = measured(
                        [sys.executable, "-m", "bottui", "limiter", verb, "rl-login",
                         "--base-url", sandbox.base_url, "--account", DEMO_ACCOUNT,
                         "--project", PROJECT],
                        env,
                    )  # fmt: skip
                    if run["code"] != 0:
                        raise RuntimeError(f"the change failed: exit {run['code']}")
                    walls[side].append(run["wall"])
            shared = counts(url)[0]
    finally:
        sandbox.stop()
    a, t = statistics.median(walls["alone"]), statistics.median(walls["team"])
    print(
        f"median wall per command (spawn to exit): SQLite alone {a * 1000:.0f} ms, with the"
        f" push {t * 1000:.0f} ms (+{(t - a) * 1000:.0f} ms: connect and push at exit);"
        f" {shared} of {args.changes} entries in PostgreSQL at the end"
    )


def _project_token() -> str:
    from bottui.sandbox.demo_data import DEMO_PROJECT_TOKENS

    return DEMO_PROJECT_TOKENS[PROJECT]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("rate", "whole", "single"))
    parser.add_argument("--ids", type=int)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--reason", help="rate: --reason TEXT on every run (indexed per id)")
    args = parser.parse_args()
    if args.ids is None:
        args.ids = 1_000_000 if args.what == "whole" else 20_000
    if args.latency is None:
        args.latency = 0.0 if args.what == "whole" else 0.05
    os.environ.setdefault("BOTTUI_ACCESS_TOKEN", DEMO_ACCESS_TOKEN)
    server = _own_server()
    print(f"PostgreSQL from {server.origin}")
    try:
        {"rate": rate, "whole": whole, "single": single}[args.what](args, server)
    finally:
        _teardown(server)


if __name__ == "__main__":
    main()
