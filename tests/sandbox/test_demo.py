"""The demo data set and its hostile variant."""

from __future__ import annotations

import httpx

from bottui.plaintext import clean, has_control
from bottui.sandbox.demo_data import (
    DEMO_ACCOUNT,
    DEMO_DIMENSIONS,
    DEMO_GRANTS,
    DEMO_PROJECT_TOKENS,
    DEMO_PROJECTS,
    DEMO_RATE_LIMITERS,
    HOSTILE_ANSI,
    HOSTILE_C1,
    HOSTILE_ERROR_MESSAGE,
    HOSTILE_MARKUP,
    HOSTILE_PROJECT_ID,
    HOSTILE_PROJECT_TOKEN,
    HOSTILE_STRINGS,
    project_tokens,
)
from bottui.sandbox.server import SandboxServer
from bottui.sandbox.state import ManualClock, demo_state
from tests.sandbox.helpers import PERSONAL, SSL, assert_error, key, limiter_path, revoke_path


def test_demo_projects_limiters_dimensions() -> None:
    state = demo_state(ManualClock())
    assert state.project_ids(DEMO_ACCOUNT) == list(DEMO_PROJECTS) == list(DEMO_PROJECT_TOKENS)
    assert list(DEMO_PROJECTS) == ["shop-prod", "shop-staging", "docs-site"]
    for project_id, name in DEMO_PROJECTS.items():
        project = state.project_json(DEMO_ACCOUNT, project_id)
        assert project is not None and project["name"] == name
        limiters = state.rate_limiters(DEMO_ACCOUNT, project_id)
        assert 2 <= len(limiters) <= 4
        assert {lim.is_active for lim in limiters} == {True, False}
        assert all(lim.name for lim in limiters)
        assert [lim.id for lim in limiters] == [lim.id for lim in DEMO_RATE_LIMITERS[project_id]]
        for dim in state.dimensions(DEMO_ACCOUNT, project_id):
            assert 0 <= dim.challenge_threshold < dim.block_threshold <= 1
        assert len(DEMO_DIMENSIONS[project_id]) >= 2
    kinds = {g.kind for g in state.grants(DEMO_ACCOUNT)}
    assert kinds == {"visitorId", "userAccountId"}
    assert len(state.grants(DEMO_ACCOUNT)) == len(DEMO_GRANTS)


def test_demo_is_deterministic_with_a_manual_clock() -> None:
    first, second = demo_state(ManualClock()), demo_state(ManualClock())
    for project_id in DEMO_PROJECTS:
        assert first.project_json(DEMO_ACCOUNT, project_id) == second.project_json(
            DEMO_ACCOUNT, project_id
        )
    assert first.revoke(DEMO_ACCOUNT, "shop-prod", "x", None) == second.revoke(
        DEMO_ACCOUNT, "shop-prod", "x", None
    )


def test_hostile_state_is_hostile() -> None:
    plain = demo_state(ManualClock())
    assert not plain.has_project(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
    state = demo_state(ManualClock(), hostile=True)
    project = state.project_json(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)
    assert project is not None and project["name"] == HOSTILE_MARKUP
    names = [lim.name for lim in state.rate_limiters(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)]
    assert HOSTILE_ANSI in names and HOSTILE_C1 in names
    dims = [dim.name for dim in state.dimensions(DEMO_ACCOUNT, HOSTILE_PROJECT_ID)]
    assert HOSTILE_MARKUP in dims
    assert project_tokens(hostile=True)[HOSTILE_PROJECT_ID] == HOSTILE_PROJECT_TOKEN
    for text in HOSTILE_STRINGS[1:]:
        assert has_control(text)
        assert not has_control(clean(text))


def test_hostile_errors_and_names_over_http(hostile_sandbox: SandboxServer) -> None:
    with httpx.Client(verify=SSL, base_url=hostile_sandbox.base_url) as http:
        r = http.post(revoke_path(), json={"subject": {}}, headers=PERSONAL)
        body = assert_error(r, 400, "invalid_request", "validation_error")
        assert body["message"] == HOSTILE_ERROR_MESSAGE
        assert http.get("/nowhere").json()["message"] == HOSTILE_ERROR_MESSAGE
        hostile_sandbox.faults.configure(fail_next=1)
        assert http.post(revoke_path(), json={}).json()["message"] == HOSTILE_ERROR_MESSAGE
        r = http.patch(
            limiter_path("rl/[red]x[/red]", HOSTILE_PROJECT_ID),
            json={"isActive": False},
            headers=key(HOSTILE_PROJECT_TOKEN),
        )
        assert r.status_code == 200
        project = r.json()
        assert project["name"] == HOSTILE_MARKUP
        names = [lim["name"] for lim in project["rateLimits"]["rateLimits"]]
        assert HOSTILE_ANSI in names and HOSTILE_C1 in names
