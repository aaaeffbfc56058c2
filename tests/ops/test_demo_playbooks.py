"""The playbooks ``bottui demo`` offers are valid and name what the demo's inventory knows."""

from __future__ import annotations

from pathlib import Path

from bottui.demo import DEMO_PLAYBOOKS, demo_snapshot, write_demo_playbooks
from bottui.ops.playbooks import library
from bottui.ops.playbooks.library import LimiterStep
from bottui.store.files import Locations


def test_the_demo_playbooks_are_valid_and_name_known_ids(tmp_path: Path) -> None:
    locations = Locations.under(tmp_path)
    write_demo_playbooks(locations)
    assert library.check_playbooks(locations) == []
    snapshot = demo_snapshot("2026-11-21T03:00:00Z")
    limiters = {(e.project, e.id) for e in snapshot.limiters}
    dimensions = {(e.project, e.id) for e in snapshot.dimensions}
    for name in DEMO_PLAYBOOKS:
        playbook = library.read_playbook(locations, name)
        project = playbook.project or "shop-prod"  # the demo profile's project
        for step in playbook.steps:
            if isinstance(step, LimiterStep):
                assert (project, step.limiter_id) in limiters, (name, step)
            else:
                assert (project, step.dimension_id) in dimensions, (name, step)
