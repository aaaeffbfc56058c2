"""A throwaway PostgreSQL of our own: ``initdb`` and ``postgres`` in one directory.

``bottui demo --team`` runs one for the length of the demo, and the test
fixture (``tests/fixtures/postgres.py``) one for the test run. No driver is
imported here: this starts and stops server processes, nothing more.

Where the binaries come from, first that works (:func:`find_binaries`):

1. ``pgserver`` (the ``demo`` and ``test`` extras on CPython 3.11 and 3.12),
   which bundles PostgreSQL's binaries; found, not imported (importing it
   sets up a runtime directory of its own);
2. ``initdb`` and ``pg_ctl`` on ``PATH``;
3. Debian's ``/usr/lib/postgresql/*/bin``, newest first.

``initdb`` refuses to run as root, so as root the server runs as an
unprivileged account (:func:`server_account`: ``postgres`` when the system
has it, else ``bottui-pg``, made with ``useradd``, as pgserver does), and
the directories on the way to its files are made searchable by others.

:class:`LocalPostgres` runs ``postgres`` itself as a child (not through
``pg_ctl``, whose server outlives it), in a session of its own so that a
terminal's signals do not reach it, and (on Linux, started from the main
thread) with a parent-death signal: a demo or a test run killed by SIGKILL
takes its server with it.
"""

from __future__ import annotations

import contextlib
import glob
import importlib.util
import os
import pwd
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final
from urllib.parse import quote

from bottui.store.store_errors import StoreError

#: Where Debian's packages put PostgreSQL's binaries (one directory per major version).
SYSTEM_BINDIRS: Final = "/usr/lib/postgresql/*/bin"
#: The account the server runs as when we are root and ``postgres`` is absent.
SERVICE_ACCOUNT: Final = "bottui-pg"
#: The command that brings what ``bottui demo --team`` needs.
INSTALL_DEMO: Final = "pip install 'bottui[demo]'"
#: The database role ``initdb`` makes (trusted on the Unix socket).
SUPERUSER: Final = "postgres"
#: Seconds ``initdb`` and the server's start may take (a busy 2-core machine).
START_TIMEOUT: Final = 60.0
#: A Unix socket's path must fit ``sun_path`` (108 bytes on Linux, 104 elsewhere).
_SOCKET_PATH_MAX: Final = 100
_PR_SET_PDEATHSIG: Final = 1


class NoPostgres(StoreError):
    """No PostgreSQL could be found or started; the details say why and what to install."""


def find_binaries() -> tuple[Path, str]:
    """The directory of ``initdb`` and ``postgres``, and where it came from.

    Raises :class:`NoPostgres` naming every place tried and what to install.
    """
    tried: list[str] = []
    try:
        spec = importlib.util.find_spec("pgserver")
    except (ImportError, ValueError):  # blocked, or half-imported
        spec = None
    if spec is not None and spec.origin is not None:
        bindir = Path(spec.origin).parent / "pginstall" / "bin"
        if (bindir / "initdb").exists() and (bindir / "postgres").exists():
            return bindir, "pgserver"
        tried.append(f"pgserver is installed but has no initdb in {bindir}")
    else:
        tried.append("pgserver is not installed (it has wheels for CPython 3.11 and 3.12 only)")
    found = shutil.which("initdb")
    if found:
        bindir = Path(found).resolve().parent
        if (bindir / "postgres").exists():
            return bindir, "PATH"
    candidates = sorted(
        glob.glob(SYSTEM_BINDIRS),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
        reverse=True,
    )
    for candidate in candidates:
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "postgres").exists():
            return Path(candidate), "the system"
    tried.append(f"no initdb on PATH or under {SYSTEM_BINDIRS}")
    raise NoPostgres(
        "No PostgreSQL was found on this machine",
        "; ".join(tried)
        + f".\nInstall it with: {INSTALL_DEMO}"
        + " (on CPython 3.11 and 3.12; elsewhere install PostgreSQL itself,"
        " e.g. apt-get install postgresql).",
    )


def server_account() -> str | None:
    """The account to run PostgreSQL as: ``None`` (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", SERVICE_ACCOUNT):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    try:
        subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SERVICE_ACCOUNT,
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise NoPostgres(
            "PostgreSQL refuses to run as root, and no account could be made to run it",
            f"useradd {SERVICE_ACCOUNT}: {exc}",
        ) from None
    return SERVICE_ACCOUNT


def make_searchable(path: Path) -> None:
    """Let the server's account reach ``path``: it and every parent searchable by others
    (pgserver does the same for its binaries)."""
    for parent in [path, *path.parents]:
        with contextlib.suppress(OSError):
            mode = parent.stat().st_mode
            if not mode & 0o001:
                parent.chmod(mode | 0o001)


def _parent_death_signal() -> Callable[[], None] | None:
    """What the child runs before exec (Linux): SIGQUIT, PostgreSQL's immediate
    shutdown, when the process that started it ends, however it ends.

    ``prctl`` is looked up here, in the parent: the child between fork and
    exec may only call it.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    quit_signal = int(signal.SIGQUIT)

    def set_it() -> None:
        prctl(_PR_SET_PDEATHSIG, quit_signal, 0, 0, 0)

    return set_it


class LocalPostgres:
    """A PostgreSQL cluster under ``root``, run as a child process.

    Args:
        root: A directory of its own (``data``, ``sock`` and ``log`` go in it).
        bindir: Where ``initdb`` and ``postgres`` are (default: :func:`find_binaries`).
        origin: Where ``bindir`` came from (shown in messages).
        account: The system account to run as (:func:`server_account`; None: ourselves).
        port: The port, which also names the Unix socket's file.
        tcp_host: Also listen on this loopback address (default: the Unix socket only).
        durable: Keep fsync on (off by default: a throwaway cluster).
    """

    def __init__(
        self,
        root: Path,
        *,
        bindir: Path | None = None,
        origin: str = "",
        account: str | None = None,
        port: int = 5432,
        tcp_host: str | None = None,
        durable: bool = False,
    ) -> None:
        if bindir is None:
            bindir, origin = find_binaries()
        self.root = root
        self.bindir = bindir
        self.origin = origin
        self.account = account
        self.port = port
        self.tcp_host = tcp_host
        self.durable = durable
        self.datadir = root / "data"
        self.socket_dir = root / "sock"
        self.logfile = root / "log"
        self._process: subprocess.Popen[bytes] | None = None

    # -- set-up -------------------------------------------------------------------------

    def _ids(self) -> tuple[int, int] | None:
        if self.account is None:
            return None
        entry = pwd.getpwnam(self.account)
        return entry.pw_uid, entry.pw_gid

    def _as_account(self) -> dict[str, object]:
        ids = self._ids()
        if ids is None:
            return {}
        return {"user": ids[0], "group": ids[1], "extra_groups": []}

    def initdb(self, password_file: Path | None = None) -> None:
        """Make the cluster: local connections trusted, TCP ones by password (scram)."""
        socket_file = self.socket_dir / f".s.PGSQL.{self.port}"
        if len(os.fsencode(socket_file)) > _SOCKET_PATH_MAX:
            raise NoPostgres(
                "The throwaway PostgreSQL's socket path is too long",
                f"{socket_file} is over {_SOCKET_PATH_MAX} bytes: set TMPDIR to a shorter "
                "directory (e.g. TMPDIR=/tmp).",
            )
        self.root.mkdir(parents=True, exist_ok=True)
        self.socket_dir.mkdir(exist_ok=True)
        ids = self._ids()
        if ids is not None:
            make_searchable(self.bindir)
            for path in (self.root, self.socket_dir):
                os.chown(path, *ids)
            if password_file is not None:
                os.chown(password_file, *ids)
            make_searchable(self.root)
        argv = [
            str(self.bindir / "initdb"),
            "-D",
            str(self.datadir),
            "-U",
            SUPERUSER,
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        ]
        if password_file is not None:
            argv.append(f"--pwfile={password_file}")
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                timeout=START_TIMEOUT,
                check=False,
                cwd="/",
                **self._as_account(),  # type: ignore[call-overload]
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise NoPostgres("initdb could not be run", f"{self.bindir}: {exc}") from None
        if done.returncode != 0:
            raise NoPostgres(
                f"initdb ({self.origin or self.bindir}) failed", done.stderr.strip()[-1500:]
            )

    # -- running ------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start the server and wait until it accepts connections."""
        if self.pid is not None:
            return
        options = [
            "-D",
            str(self.datadir),
            "-p",
            str(self.port),
            "-k",
            str(self.socket_dir),
            "-c",
            f"listen_addresses={self.tcp_host or ''}",
        ]
        if not self.durable:
            for setting in ("fsync=off", "synchronous_commit=off", "full_page_writes=off"):
                options += ["-c", setting]
        log: IO[bytes] = self.logfile.open("ab")
        # Tied to the thread that starts it (that is what the kernel watches):
        # only the main thread lives as long as the process.
        main = threading.current_thread() is threading.main_thread()
        preexec = _parent_death_signal() if main else None
        try:
            self._process = subprocess.Popen(
                [str(self.bindir / "postgres"), *options],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd="/",
                start_new_session=True,
                preexec_fn=preexec,  # only a prctl, between fork and exec
                **self._as_account(),  # type: ignore[call-overload]
            )
        except OSError as exc:
            raise NoPostgres("PostgreSQL could not be started", str(exc)) from None
        finally:
            log.close()
        self._wait_ready(timeout)

    def _wait_ready(self, timeout: float) -> None:
        pidfile = self.datadir / "postmaster.pid"
        deadline = time.monotonic() + timeout
        while True:
            process = self._process
            if process is None or process.poll() is not None:
                raise NoPostgres("PostgreSQL stopped while starting", self.log_tail())
            with contextlib.suppress(OSError):
                lines = pidfile.read_text(encoding="utf-8", errors="replace").splitlines()
                # Line 8 of postmaster.pid is the server's state (PostgreSQL 10+).
                if len(lines) >= 8 and lines[7].strip() == "ready":
                    return
            if time.monotonic() > deadline:
                self.stop()
                raise NoPostgres(f"PostgreSQL did not start within {timeout:g} s", self.log_tail())
            time.sleep(0.05)

    def log_tail(self, size: int = 1500) -> str:
        """The end of the server's log (for messages)."""
        try:
            text = self.logfile.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text.strip()[-size:]

    def running(self) -> bool:
        """Whether the server process runs."""
        return self.pid is not None

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the server (fast shutdown: clients are disconnected) and wait for it."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        for sig, wait in ((signal.SIGINT, timeout), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(OSError):
                process.send_signal(sig)
            try:
                process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def kill(self) -> None:
        """Immediate shutdown without waiting (a signal handler's last resort)."""
        pid = self.pid
        if pid is not None:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGQUIT)

    # -- connecting ---------------------------------------------------------------------

    def url(self, database: str = "postgres", user: str = SUPERUSER) -> str:
        """The libpq URL of ``database`` over the Unix socket (trusted: no password)."""
        host = quote(str(self.socket_dir), safe="")
        return (
            f"postgresql://{quote(user, safe='')}@/{quote(database, safe='')}"
            f"?host={host}&port={self.port}"
        )
