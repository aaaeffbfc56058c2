"""Python and bottui: which versions run, and from where."""

from __future__ import annotations

import sys
from typing import Final

from bottui import __version__
from bottui.ops.doctor.model import Check, Verdict

#: The oldest Python bottui supports (pyproject's requires-python).
PYTHON_FLOOR: Final = (3, 11)


def check_versions(version_info: tuple[int, ...] | None = None) -> Check:
    """Python (against the floor) and bottui's own version and location."""
    info = tuple(sys.version_info[:3]) if version_info is None else version_info
    python = ".".join(str(part) for part in info)
    import bottui

    where = bottui.__file__ or "?"
    detail = f"Python {python} ({sys.executable}), bottui {__version__} ({where})"
    if info[:2] < PYTHON_FLOOR:
        floor = ".".join(str(part) for part in PYTHON_FLOOR)
        return Check(
            "versions",
            "Python and bottui",
            Verdict.PROBLEM,
            f"{detail}: bottui needs Python {floor} or newer",
            f"install bottui under Python {floor}+ (pipx install --python python3.12 bottui)",
        )
    return Check("versions", "Python and bottui", Verdict.OK, detail)


__all__ = ["PYTHON_FLOOR", "check_versions"]
