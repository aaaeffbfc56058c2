"""The profile's ``late_limit_minutes``: read, checked, written, and used by run-due."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottui.ops.session import Settings
from bottui.store.config.config_file import check_config_file
from bottui.store.config.config_model import Profile, parse_config
from bottui.store.store_errors import InvalidValue


def test_read_and_resolved() -> None:
    config = parse_config(
        {"current": "p", "profiles": {"p": {"base_url": "https://x.test", "late_limit_minutes": 5}}}
    )
    assert config.profiles["p"].late_limit_minutes == 5
    assert Settings.resolve(config, environ={}).late_limit_minutes == 5


@pytest.mark.parametrize("value", [0, -1, 10_081, True, 1.5])
def test_refused_values(value: object) -> None:
    with pytest.raises(InvalidValue, match="late_limit_minutes"):
        Profile("p", "https://x.test", late_limit_minutes=value)  # type: ignore[arg-type]


def test_config_check_knows_the_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[profiles.p]\nbase_url = "https://x.test"\nlate_limit_minutes = 30\n', encoding="utf-8"
    )
    report = check_config_file(path)
    assert not [p for p in report.problems if "late_limit" in p.message]
