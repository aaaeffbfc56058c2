"""Undo (``bottui.ops.undo``) and the journal views (``bottui.ops.journal_view``).

The sandbox runs in-process over ASGI; the session is the demo's (seeded
inventory, so the state before a change is known).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from msgspec.structs import replace

from bottui.api.client import BotProtectionClient, build_thresholds
from bottui.api.errors import ApiError, RefusedError, ValidationError
from bottui.api.sending import RetryPolicy
from bottui.demo import prepare
from bottui.ops import journal_view, mutations, undo
from bottui.ops.journal_view import JournalQuery
from bottui.ops.session import Session
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.endpoints import create_app
from bottui.sandbox.faults import Faults
from bottui.sandbox.state import ManualClock, SandboxState, demo_state
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import Operation, limiter_target
from tests.fixtures import stores
from tests.fixtures.stores import inventory_of

BASE = "http://127.0.0.1:8765"
ACC = DEMO_ACCOUNT
PROJ = "shop-prod"


class Backend:
    """The sandbox in-process, and what it received."""

    def __init__(self) -> None:
        self.state: SandboxState = demo_state(ManualClock())
        self.faults = Faults()
        self.app = create_app(self.state, self.faults)

    def client(self, base_url: str) -> BotProtectionClient:
        transport = httpx.ASGITransport(app=self.app)
        return BotProtectionClient(base_url, transport=transport, policy=RetryPolicy(deadline=5))

    def sent(self) -> list[tuple[str, str, object]]:
        return [(r.method, r.segments[-1], r.json) for r in self.state.recorder.log]


@pytest.fixture
def backend() -> Backend:
    return Backend()


@pytest.fixture
def session(tmp_path: Path, backend: Backend) -> Session:
    return prepare(tmp_path / "demo", BASE, client_factory=backend.client)


def journal_of(session: Session) -> Journal:
    # The session's own file, on a connection of the test's (closed with the test).
    journal = stores.journal_of(session)
    _OPENED.append(journal)
    return journal


_OPENED: list[Journal] = []


@pytest.fixture(autouse=True)
def _close_opened() -> Iterator[None]:
    yield
    while _OPENED:
        _OPENED.pop().close()


async def disable_login(session: Session) -> int:
    applied = await mutations.set_limiter(session, ACC, PROJ, "rl-login", False)
    assert applied.journal_id is not None
    return applied.journal_id


async def set_bot_score(session: Session, block: str = "0.9", challenge: str = "0.6") -> int:
    thresholds = build_thresholds("Bot score", block, challenge)
    applied = await mutations.set_thresholds(session, ACC, PROJ, "bot-score", thresholds)
    assert applied.journal_id is not None
    return applied.journal_id


# -- finding the change --------------------------------------------------------------


async def test_nothing_to_undo(session: Session) -> None:
    with pytest.raises(undo.UndoRefused) as caught:
        await undo.find(session)
    assert caught.value.exit_code == 2
    assert "no rate limiter or threshold change of profile 'demo'" in caught.value.details
    with pytest.raises(undo.UndoRefused, match="Cannot undo"):
        await undo.find(session, "thresholds")
    with pytest.raises(undo.UndoRefused, match="Cannot undo"):
        await undo.find(session, "bogus")  # type: ignore[arg-type]


async def test_the_newer_of_two_kinds_or_the_kind_asked(session: Session) -> None:
    limiter_id = await disable_login(session)
    thresholds_id = await set_bot_score(session)
    plan = await undo.find(session)
    assert (plan.kind, plan.entry.id, plan.target_id) == ("thresholds", thresholds_id, "bot-score")
    assert plan.change == (
        "Bot score: block 0.9, challenge 0.6 -> Bot score: block 0.8, challenge 0.5"
    )
    plan = await undo.find(session, "limiter")
    assert (plan.kind, plan.entry.id) == ("limiter", limiter_id)
    assert (plan.account, plan.project, plan.change) == (ACC, PROJ, "OFF -> ON")
    assert plan.summary().startswith(
        f"rate limiter rl-login of {ACC}/{PROJ}: OFF -> ON (undoes journal entry #{limiter_id} of "
    )
    assert plan.to_json() == {
        "kind": "limiter",
        "undoes": limiter_id,
        "account": ACC,
        "project": PROJ,
        "target": {"rate_limiter_id": "rl-login"},
        "from": {"isActive": False},
        "to": {"isActive": True},
    }
    request = (await undo.plan_change(session, plan)).request
    assert request.method == "PATCH" and request.body == b'{"isActive": true}'
    assert request.url.endswith(f"/{ACC}/projects/{PROJ}/rate_limiters/rl-login/active")


async def test_an_unknown_newest_change_refuses_or_falls_back(session: Session) -> None:
    thresholds_id = await set_bot_score(session)
    journal = journal_of(session)
    cut_off = journal.start(  # a SIGKILL mid-request leaves this
        profile="demo",
        base_url=BASE,
        operation=Operation.SET_LIMITER_ACTIVE,
        account=ACC,
        project=PROJ,
        target=limiter_target("rl-login"),
        request_body={"isActive": False},
        previous={"isActive": True},
    )
    with pytest.raises(undo.UndoRefused) as caught:
        await undo.find(session)
    assert f"#{cut_off}" in caught.value.details and "no outcome" in caught.value.details
    assert caught.value.other == "thresholds"
    plan = await undo.find(session, fall_back=True)
    assert plan.entry.id == thresholds_id and plan.passed_over is not None
    assert plan.passed_over.entry is not None and plan.passed_over.entry.id == cut_off


async def test_a_change_of_another_base_url_is_refused(session: Session) -> None:
    await disable_login(session)
    other = replace(session.settings, base_url="https://api.example.com")
    session.update_settings(other)
    with pytest.raises(undo.UndoRefused, match="Cannot undo") as caught:
        await undo.find(session)
    assert f"was sent to {BASE}" in caught.value.details


async def test_a_damaged_journal_refuses(session: Session) -> None:
    path = session.locations.journal_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database " * 200)
    with pytest.raises(undo.UndoRefused) as caught:
        await undo.find(session)
    assert "cannot be read" in caught.value.details


# -- sending it ------------------------------------------------------------------------


async def test_apply_sends_and_journals_an_undo_entry(session: Session, backend: Backend) -> None:
    first = await disable_login(session)
    plan = await undo.find(session)
    applied = await undo.apply(session, plan)
    assert backend.sent()[-1] == ("PATCH", "active", {"isActive": True})
    journal = journal_of(session)
    entry = journal.entry(applied.journal_id or 0)
    assert entry is not None
    assert (entry.undo_of, entry.outcome, entry.operation) == (first, "ok", "limiter.set-active")
    assert entry.target == {"rate_limiter_id": "rl-login"}
    assert entry.previous == {"isActive": False}  # what the inventory knew before the undo
    inventory = inventory_of(session)
    assert inventory is not None
    login = inventory.limiter(ACC, PROJ, "rl-login")
    assert login is not None and login.is_active is True
    # The undo is itself the last change: undoing it again is a redo.
    redo = await undo.find(session)
    assert redo.entry.id == applied.journal_id and redo.restore == {"isActive": False}


async def test_threshold_literals_come_back_exactly(session: Session, backend: Backend) -> None:
    await set_bot_score(session, "0.123456789012345678", "0.05")
    second = await set_bot_score(session, "0.9", "0.6")
    applied = await undo.apply(session, await undo.find(session))
    entry = journal_of(session).entry(applied.journal_id or 0)
    assert entry is not None and entry.undo_of == second
    assert entry.target == {"dimension_id": "bot-score"}
    last = backend.state.recorder.log[-1]
    assert last.method == "PUT"
    assert last.body == (
        b'{"name":"Bot score","blockThreshold":0.123456789012345678,"challengeThreshold":0.05}'
    )


async def test_a_stale_plan_sends_nothing(session: Session, backend: Backend) -> None:
    await disable_login(session)
    plan = await undo.find(session)
    await mutations.set_limiter(session, ACC, PROJ, "rl-checkout", False)  # another terminal
    requests = len(backend.sent())
    with pytest.raises(undo.UndoRefused, match="Cannot undo") as caught:
        await undo.apply(session, plan)
    assert "is now the last rate limiter change" in caught.value.details
    assert len(backend.sent()) == requests


async def test_read_only_and_protected_rules_apply(session: Session, backend: Backend) -> None:
    await disable_login(session)
    plan = await undo.find(session)
    requests = len(backend.sent())
    settings = session.settings
    session.update_settings(replace(settings, read_only=True))
    with pytest.raises(RefusedError, match="Read-only"):
        await undo.apply(session, plan, confirmed=True)
    session.update_settings(replace(settings, protected=True))
    with pytest.raises(RefusedError, match="Protected"):
        await undo.apply(session, plan)
    assert len(backend.sent()) == requests
    await undo.apply(session, plan, confirmed=True)
    assert len(backend.sent()) == requests + 1


async def test_a_failed_undo_is_journaled_and_leaves_the_plan(
    session: Session, backend: Backend
) -> None:
    first = await disable_login(session)
    backend.faults.configure(fail_next=1, error_status=500)
    with pytest.raises(ApiError):
        await undo.apply(session, await undo.find(session))
    failed = journal_of(session).entries()[0]
    assert (failed.undo_of, failed.outcome) == (first, "api-error")
    # An api-error changed nothing: the same change is still the one to undo.
    assert (await undo.find(session)).entry.id == first


# -- journal views -----------------------------------------------------------------------


async def test_read_filters_and_outcome_groups(session: Session, backend: Backend) -> None:
    await disable_login(session)
    await set_bot_score(session)
    await mutations.revoke(session, ACC, PROJ, visitor_id="vis_7Hq2kP9xLm")
    with pytest.raises(ApiError):
        await mutations.set_limiter(session, ACC, PROJ, "rl-gone", True)
    journal = journal_of(session)

    async def ops(**filters: object) -> list[str]:
        query = JournalQuery(**filters)  # type: ignore[arg-type]
        return [e.operation for e in await journal_view.read(session.journal_store, query)]

    assert await ops() == [
        "limiter.set-active",
        "grant.revoke",
        "thresholds.set",
        "limiter.set-active",
    ]
    succeeded = ["grant.revoke", "thresholds.set", "limiter.set-active"]
    assert await ops(outcome="succeeded") == succeeded
    assert await ops(outcome="succeeded", limit=2) == ["grant.revoke", "thresholds.set"]
    assert await ops(outcome="failed") == ["limiter.set-active"]
    assert await ops(outcome="withdrawn") == ["grant.revoke"]
    assert await ops(outcome="unknown") == await ops(outcome="unfinished") == []
    assert await ops(operation="thresholds.set", project=PROJ) == ["thresholds.set"]
    assert await ops(project="docs-site") == [] and await ops(profile="other") == []
    assert await ops(since="2999-01-01") == []
    with pytest.raises(ValidationError, match="ISO 8601"):
        await ops(since="last tuesday")

    newest = journal.entries()[0]
    line = journal_view.line(newest)
    assert f"  {ACC}/{PROJ}  rl-gone -> ON  api-error 404  " in line
    assert line.endswith(f"#{newest.id}") and "limiter.set-active" in line
    revoke = journal.entries(operation="grant.revoke")[0]
    assert journal_view.target_text(revoke) == "visitor vis_7Hq2kP9xLm"
    assert journal_view.operation_text(revoke, short=True) == "revoke"


def test_export_formats_and_operation_names() -> None:
    assert journal_view.export_format(Path("a.JSONL")) == "jsonl"
    assert journal_view.export_format(Path("a.csv")) == "csv"
    assert journal_view.export_format(Path("a.txt"), "csv") == "csv"
    for bad in (lambda: journal_view.export_format(Path("a.txt")),
                lambda: journal_view.export_format(Path("a.csv"), "xml")):  # fmt: skip
        with pytest.raises(ValidationError):
            bad()
    assert journal_view.operation_named("limiter") == "limiter.set-active"
    assert journal_view.operation_named("grant.revoke") == "grant.revoke"
    with pytest.raises(ValidationError, match="not an operation"):
        journal_view.operation_named("delete")
