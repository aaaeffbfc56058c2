"""The one refusal of a profile name that names no profile: title, closest name, the others.

Every command says it the same way (``No profile named 'prd'`` / ``did you
mean 'prod'? known profiles: dev, prod``), whether it opens a session, reads
the journal or edits the config.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from bottui.plaintext import clean


def no_such_profile(name: str, known: Iterable[str]) -> tuple[str, str]:
    """(title, details) of the refusal of ``name`` among the ``known`` profile names."""
    names = sorted(known)
    if not names:
        return (
            f"No profile named {clean(name)!r}",
            "there are no profiles yet: bottui profile add NAME --base-url URL",
        )
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    hint = f"did you mean {clean(close[0])!r}? " if close else ""
    return (
        f"No profile named {clean(name)!r}",
        f"{hint}known profiles: {', '.join(clean(n) for n in names)}",
    )


__all__ = ["no_such_profile"]
