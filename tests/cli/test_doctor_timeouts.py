"""``bottui doctor``: a check that timed out says so and what it waited for (#27).

A working sandbox that is slow to answer (held: a busy machine) is a
warning, never "no answer" as a problem; only a host that cannot be reached
at all is a problem.
"""

from __future__ import annotations

import asyncio
import json
import socket

from bottui.ops.doctor import Verdict, check_api
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli


def test_a_held_sandbox_is_slow_not_broken() -> None:
    with SandboxServer() as sandbox:
        sandbox.faults.configure(hold=True)  # answers only once released: busy
        try:
            found = asyncio.run(check_api(sandbox.base_url, timeout=0.3, source="flag"))
        finally:
            sandbox.faults.release()
    assert found.verdict is Verdict.WARNING, found
    assert "timed out after 0.3 s waiting for the answer to one probe request" in found.detail
    assert "/challenges/grant-revocations" in found.detail
    assert "accepts connections" in found.detail


def test_an_unreachable_host_that_times_out_is_a_problem() -> None:
    with socket.socket() as sock:  # bound, never listening: nothing accepts
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        found = asyncio.run(check_api(url, timeout=0.3, source="flag"))
    assert found.verdict is Verdict.PROBLEM
    assert "not reachable" in found.detail


def test_the_cli_says_timed_out_and_exits_0_for_a_silent_server() -> None:
    """Connected (the kernel's backlog accepts) but never answered: a warning, exit 0."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        done = cli("doctor", "--json", "--base-url", f"http://127.0.0.1:{sock.getsockname()[1]}")
    api = {check["id"]: check for check in json.loads(done.out)["checks"]}["api"]
    assert api["verdict"] == "warning", api
    assert "timed out after 4 s waiting for the answer" in api["detail"]
    assert "no answer within" not in api["detail"]


def test_a_check_past_its_budget_is_a_warning_naming_what_it_waited_for() -> None:
    from bottui.ops import doctor

    async def never() -> None:
        await asyncio.Event().wait()

    late = doctor._late("team-store", "Team store", "the team store (PostgreSQL) to answer")
    found = asyncio.run(doctor._bounded(never(), 0.01, late))
    assert found is not None and found.verdict is Verdict.WARNING
    assert (
        found.detail == "timed out after 0.01 s waiting for the team store (PostgreSQL) to answer"
    )
