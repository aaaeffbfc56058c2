"""Which PostgreSQL a profile's team store is, checked before anything connects.

A store is named by a ``postgresql://`` URL: the profile's ``store`` in
``config.toml``, or ``BOTTUI_STORE_URL``, which wins (:func:`bottui.store.team.resolve_store_url`;
``bottui demo`` reads neither). :func:`check_store_url` refuses

* a URL that carries a password (user info or ``?password=``): the password
  comes from libpq's own means (``~/.pgpass``/``PGPASSFILE``, ``PGPASSWORD``,
  client certificates, ``PGSERVICE``) or the keyring
  (``bottui token set store``), never from ``config.toml`` or a command line;
* an unverified connection off loopback: unless every host is a Unix socket,
  ``localhost`` or a loopback address, the effective ``sslmode`` (the URL's,
  else the service file's, else ``PGSSLMODE``, libpq's order) must be
  ``verify-full``: a man in the middle could otherwise inject fake
  teammates' changes.

What was judged is then *pinned*: the connection is made with the hosts and
the ``sslmode`` given explicitly (:attr:`StoreTarget.pinned`), so a setting
libpq would find where this module cannot look (a system service file in
its compiled-in directory) cannot make it connect elsewhere or less safely.

The libpq connection service file (``PGSERVICE``, ``service=``) is read as
libpq reads it (:func:`service_settings`): a service's settings count between
the URL's own and the environment's. libpq looks in ``PGSERVICEFILE``
(default ``~/.pg_service.conf``) and, if the service is not there, in
``PGSYSCONFDIR/pg_service.conf``; a system file in libpq's compiled-in
directory cannot be found without ``pg_config``, hence the pinning above.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import msgspec

from bottui.plaintext import clean, has_control
from bottui.store.team.team_errors import StoreRefused, TeamModeNotInstalled
from bottui.store.token_sources import store_username

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


_SCHEMES: Final = ("postgresql", "postgres")
#: The only sslmode accepted off loopback.
VERIFY_FULL: Final = "verify-full"
_NO_PASSWORD: Final = (
    "A password never sits in config.toml, the environment's store URL or a command line. "
    "Give it through libpq (~/.pgpass or PGPASSFILE, PGPASSWORD, a client certificate, "
    "PGSERVICE) or the keyring: bottui token set store --profile NAME"
)


def is_loopback_host(host: str) -> bool:
    """A Unix socket directory, an abstract socket, ``localhost`` or a loopback address."""
    if not host or host.startswith(("/", "@")):
        return True
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class StoreTarget(msgspec.Struct, frozen=True):
    """A checked store URL and what the connection is pinned to."""

    #: The URL as configured (it carries no password: checked).
    url: str
    #: The effective hosts (empty: libpq's default Unix socket).
    hosts: tuple[str, ...]
    #: The effective sslmode.
    sslmode: str
    #: Every host is a Unix socket or loopback.
    loopback: bool
    #: Connection settings given explicitly, so libpq cannot choose otherwise.
    pinned: dict[str, str] = msgspec.field(default_factory=dict)

    @property
    def where(self) -> str:
        """The URL fit to show (no password; control characters replaced)."""
        return clean(self.url)

    @property
    def keyring_username(self) -> str:
        """Where the keyring keeps this store's password."""
        return store_username(self.url)


def driver_works() -> bool:
    """Whether psycopg can be imported (found is not enough: without its binary part
    or a libpq it fails at import, "no pq wrapper available")."""
    try:
        if importlib.util.find_spec("psycopg") is None:
            return False
        import psycopg  # noqa: F401
    except (ImportError, ValueError):  # missing, blocked, or half-imported
        return False
    return True


def _parse(url: str) -> dict[str, str]:
    if importlib.util.find_spec("psycopg") is None:
        raise TeamModeNotInstalled()
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        parsed = conninfo_to_dict(url)
    except ProgrammingError:
        # not echoed: the text may hold a password
        raise StoreRefused("The team store's URL is not a valid PostgreSQL URL") from None
    return {key: str(value) for key, value in parsed.items() if value is not None}


def check_store_url(url: str, environ: Mapping[str, str]) -> StoreTarget:
    """``url`` checked and judged in ``environ``; raises :class:`StoreRefused` when refused.

    Raises :class:`TeamModeNotInstalled` when psycopg is missing.
    """
    if not isinstance(url, str) or not url.strip():
        raise StoreRefused("The team store's URL is empty")
    if has_control(url) or any(ch.isspace() for ch in url):
        raise StoreRefused("The team store's URL cannot hold blanks or control characters")
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        raise StoreRefused("The team store's URL is not a valid PostgreSQL URL") from None
    if parts.scheme.lower() not in _SCHEMES:
        raise StoreRefused(
            "The team store must be a postgresql:// URL",
            "For example: postgresql://bottui@db.internal/bottui?sslmode=verify-full",
        )
    if password is not None:
        raise StoreRefused("The team store's URL carries a password: refused", _NO_PASSWORD)
    settings = _parse(url)
    if "password" in settings:
        raise StoreRefused("The team store's URL carries a password: refused", _NO_PASSWORD)
    service = service_settings(settings.get("service") or environ.get("PGSERVICE"), environ)

    def effective(key: str, env: str) -> str:
        return settings.get(key) or service.get(key) or environ.get(env, "")

    sslmode = effective("sslmode", "PGSSLMODE")
    if not sslmode:
        sslmode = "require" if environ.get("PGREQUIRESSL") == "1" else "prefer"
    host, hostaddr = effective("host", "PGHOST"), effective("hostaddr", "PGHOSTADDR")
    hosts = tuple(h.strip() for h in host.split(",")) if host else ()
    addrs = tuple(a.strip() for a in hostaddr.split(",")) if hostaddr else ()
    judged = addrs or hosts
    loopback = all(is_loopback_host(h) for h in judged) if judged else True
    pinned: dict[str, str] = {}
    if host:
        pinned["host"] = host
    if hostaddr:
        pinned["hostaddr"] = hostaddr
    if not loopback:
        if sslmode != VERIFY_FULL:
            raise StoreRefused(
                f"The team store is off loopback and its sslmode is {clean(sslmode)!r}: "
                "refused (verify-full is required)",
                "A connection whose server is not verified lets a man in the middle inject "
                "fake teammates' changes. Add ?sslmode=verify-full to the URL (with the "
                "server's CA in ~/.postgresql/root.crt or sslrootcert=...), and check "
                "PGSSLMODE and PGSERVICE.",
            )
        pinned["sslmode"] = VERIFY_FULL
    return StoreTarget(url=url, hosts=hosts, sslmode=sslmode, loopback=loopback, pinned=pinned)


def check_connected(target: StoreTarget, host: str, sslmode: str, ssl_in_use: bool) -> None:
    """After connecting: the server reached is the one judged safe (else refuse).

    Catches what :func:`check_store_url` could not see (libpq's own default
    host, a system service file): a connection off loopback without
    ``verify-full`` is refused before anything is read or written.
    """
    if is_loopback_host(host):
        return
    if sslmode != VERIFY_FULL or not ssl_in_use:
        raise StoreRefused(
            "The team store was reached off loopback without a verified TLS connection: "
            "refused (verify-full is required)"
        )
