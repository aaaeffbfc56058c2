"""A canary token and a canary serverKey, searched for in the bytes of every file written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bottui.api.errors import ApiError, ErrorObject
from bottui.api.models import LimiterChange, LimiterStateSource, Project
from bottui.api.tokens import AccessToken, ProjectToken
from bottui.store.files import Locations
from bottui.store.inventory.inventory_file import Inventory
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import Operation, StartRecord, limiter_target

TOKEN = "canary-tok-6b1f0e2d9c"
SERVER_KEY = "canary-sk-93a7c4e1f8"
CANARIES = (TOKEN, SERVER_KEY)


def scan(root: Path) -> list[str]:
    """Files under ``root`` holding a canary, in any common encoding."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for canary in CANARIES:
            for encoded in (
                canary.encode(),
                canary.encode("utf-16-le"),
                canary.encode().hex().encode(),
            ):
                if encoded in data:
                    found.append(f"{path.relative_to(root)}: {canary}")
    return found


def test_no_secret_reaches_any_database_or_export_file(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    project_token, access_token = ProjectToken(TOKEN), AccessToken(TOKEN)
    body = {
        "id": "p1",
        "name": "Shop",
        "serverKey": SERVER_KEY,
        "siteKey": "public-site-key",
        "rateLimits": {"rateLimits": [{"id": "rl-1", "isActive": False, "serverKey": SERVER_KEY}]},
        "responseExtraFields": [{"serverKey": SERVER_KEY}],
    }
    project = Project.from_json(body)

    inventory = Inventory.at(locations, "prod")
    inventory.learn_limiter_change(
        "acc", "p1", LimiterChange("rl-1", False, LimiterStateSource.RESPONSE, project)
    )
    refused: tuple[Callable[[], object], ...] = (
        lambda: inventory.add_project("acc", "p2", project_token),  # type: ignore[arg-type]
        lambda: inventory.add_limiter("acc", "p1", access_token),  # type: ignore[arg-type]
    )
    for attempt in refused:
        with pytest.raises(TypeError):
            attempt()

    journal = Journal.at(locations)
    entry_id = journal.start(
        profile="prod",
        base_url="https://api.example.com",
        operation=Operation.SET_LIMITER_ACTIVE,
        account="acc",
        project="p1",
        target=limiter_target("rl-1"),
        request_body={"isActive": False, "serverKey": SERVER_KEY},
        previous={"isActive": True},
    )
    journal.finish(
        entry_id,
        outcome="ok",
        status=200,
        result=project.to_json(show_secrets=True),  # the raw body, serverKey in clear
        duration_ms=4.0,
    )
    failed = journal.start(
        profile="prod",
        base_url="https://api.example.com",
        operation=Operation.SET_LIMITER_ACTIVE,
        account="acc",
        project="p1",
        target=limiter_target("rl-1"),
        request_body={"isActive": True},
    )
    error = ApiError(
        500, ErrorObject("boom", "E", "server", {"project": {"serverKey": SERVER_KEY}})
    )
    journal.finish(failed, outcome="api-error", status=500, error=error.to_json()["error"])
    refused = (
        lambda: journal.start(
            profile="prod", base_url="https://api.example.com", operation="o", account="acc",
            project="p1", target={"token": project_token}, request_body=None,
        ),
        lambda: journal.start(
            profile="prod", base_url="https://api.example.com", operation="o", account="acc",
            project="p1", target={}, request_body={"headers": {"X-Api-Key": access_token}},
        ),
        lambda: journal.finish(failed, outcome="ok", result={"token": access_token}),
    )  # fmt: skip
    for attempt in refused:
        with pytest.raises(TypeError):
            attempt()
    with journal.batch(interval=0) as batch:
        batch.record(
            StartRecord(
                profile="prod",
                base_url="https://api.example.com",
                operation=Operation.REVOKE_GRANT,
                account="acc",
                project="p1",
                target={"visitorId": "v-1"},
                request_body={"subject": {"visitorId": "v-1"}, "serverKey": SERVER_KEY},
            ),
            outcome="withdrawn",
            result={"nested": [{"serverKey": SERVER_KEY}]},
        )
        with pytest.raises(TypeError):
            batch.record(
                StartRecord(
                    profile="prod",
                    base_url="https://api.example.com",
                    operation=Operation.REVOKE_GRANT,
                    account="acc",
                    project="p1",
                    target={"visitorId": "v-2"},
                    request_body={"token": project_token},
                ),
                outcome="withdrawn",
            )

    exports = tmp_path / "exports"
    exports.mkdir()
    inventory.export_toml(exports / "inventory.toml")
    entries = journal.entries()
    journal.export_jsonl(exports / "journal.jsonl", entries)
    journal.export_csv(exports / "journal.csv", entries)
    (exports / "inventory.json").write_text(json.dumps(inventory.to_dict()))
    (exports / "entries.json").write_text(json.dumps([e.to_json() for e in entries]))

    # While the connections are open (-wal and -shm files present) and after.
    assert scan(tmp_path) == []
    inventory.close()
    journal.close()
    assert scan(tmp_path) == []

    # The scan would have seen them: the masked values are there instead.
    assert '"serverKey":"***"' in (exports / "journal.jsonl").read_text("utf-8")
    assert len(entries) == 3
    assert entries[-1].result["serverKey"] == "***"
    assert entries[-1].result["siteKey"] == "public-site-key"


def test_the_scan_finds_a_canary(tmp_path: Path) -> None:
    (tmp_path / "leak.bin").write_bytes(b"prefix" + TOKEN.encode("utf-16-le"))
    assert scan(tmp_path) == [f"leak.bin: {TOKEN}"]
