"""Clocks and time formatting."""

from __future__ import annotations

import time

import pytest

from bottui.sandbox.state import MANUAL_EPOCH, Clock, ManualClock, SystemClock, iso_utc


def test_manual_clock() -> None:
    clock = ManualClock()
    assert isinstance(clock, Clock)
    assert clock.now() == MANUAL_EPOCH
    assert clock.advance(1.5) == MANUAL_EPOCH + 1.5
    with pytest.raises(ValueError):
        clock.advance(-1)
    with pytest.raises(ValueError):
        clock.advance(float("nan"))
    clock.set(0)
    assert clock.now() == 0


def test_system_clock() -> None:
    # Between two readings of the system clock, however long a busy machine takes
    # (a second of slack for the clock being stepped meanwhile).
    before = time.time()
    now = SystemClock().now()
    assert before - 1 <= now <= time.time() + 1


def test_iso_utc() -> None:
    assert iso_utc(MANUAL_EPOCH) == "2026-01-01T00:00:00Z"
    assert iso_utc(MANUAL_EPOCH + 0.25) == "2026-01-01T00:00:00.250Z"
