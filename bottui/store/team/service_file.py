"""The libpq connection service file, read as libpq reads it (``PGSERVICE``, ``service=``).

A service's settings count between the URL's own and the environment's, so
the ``sslmode`` and ``host`` a connection will really use can come from it.
libpq looks in ``PGSERVICEFILE`` (default ``~/.pg_service.conf``) and, if the
service is not there, in ``PGSYSCONFDIR/pg_service.conf``. A system file in
libpq's compiled-in directory cannot be found without ``pg_config``: what
cannot be seen here is pinned away, since the connection is made with the
host and ``sslmode`` judged here given explicitly (see :mod:`.target`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

_MAX_BYTES = 1024 * 1024


def _files(environ: Mapping[str, str]) -> list[Path]:
    user = environ.get("PGSERVICEFILE") or str(Path(environ.get("HOME", "~")) / ".pg_service.conf")
    files = [Path(os.path.expanduser(user))]
    if environ.get("PGSYSCONFDIR"):
        files.append(Path(environ["PGSYSCONFDIR"]) / "pg_service.conf")
    return files


def _section(path: Path, name: str) -> dict[str, str] | None:
    try:
        with path.open("rb") as file:
            data = file.read(_MAX_BYTES)
    except OSError:
        return None
    found: dict[str, str] | None = None
    current: str | None = None
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            if current == name and found is None:
                found = {}
            continue
        if current == name and found is not None and "=" in line:
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), value.strip())
    return found


def service_settings(name: str | None, environ: Mapping[str, str]) -> dict[str, str]:
    """The settings of service ``name`` (empty when there is none or it is not found)."""
    if not name:
        return {}
    for path in _files(environ):
        found = _section(path, name)
        if found is not None:
            return found
    return {}


__all__ = ["service_settings"]
