"""bottui's files: where they live, writing one for a person, and the lock of a bulk run.

* :class:`Locations`: the config, state and data directories (XDG's, as
  platformdirs gives them) and the files in them; nothing is made at import time.
* :class:`AtomicText` / :func:`write_atomic`: a file for a person (``revoke
  --output``, ``journal export``), whole or not at all, never through a
  symlink nor over a file unless asked.
* :class:`RunLock`: one live bulk run per input, an OS ``flock`` next to the
  journal.

TOML is read apart (:mod:`bottui.store.toml_read`): the demo's first frame
needs :class:`Locations` and not ``tomllib``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import pwd
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, NamedTuple, Self

from bottui.plaintext import clean
from bottui.store.store_errors import StoreFileError
from bottui.store.utc import stamp, system_clock

# Where bottui keeps its files: config, inventory and journal locations.
#
# Nothing here touches the file system at import time. Directories are made
# lazily, by :func:`ensure`, when something is about to write.

APP_NAME: Final = "bottui"
DIR_MODE: Final = 0o700
FILE_MODE: Final = 0o600


class Locations(NamedTuple):
    """The three directories bottui writes to, and the files inside them."""

    #: Holds ``config.toml`` (profiles, theme).
    config_dir: Path
    #: Holds the inventory database.
    data_dir: Path
    #: Holds the audit journal.
    state_dir: Path

    @classmethod
    def default(cls) -> Locations:
        """The user's directories, where platformdirs 4 puts them (XDG variables honoured).

        ``$XDG_CONFIG_HOME/bottui``, ``$XDG_DATA_HOME/bottui`` and
        ``$XDG_STATE_HOME/bottui`` when the variable holds an absolute path;
        else under the home directory: ``.config``, ``.local/share`` and
        ``.local/state``, or ``Library/Application Support`` on macOS.

        Not platformdirs itself: importing it (with tempfile, shutil, bz2,
        lzma and random) cost a Tab 7 ms of CPU, a third of ``python -c pass``,
        when a Tab is held to 2x that (tests/bench/cli_startup.py and
        ``-c "import platformdirs"``, 2026-11-28). ``tests/store/test_paths.py``
        holds them to what platformdirs answers.
        """
        mac = sys.platform == "darwin"
        return cls(
            config_dir=_user_dir("XDG_CONFIG_HOME", _MACOS_DIR if mac else ".config"),
            data_dir=_user_dir("XDG_DATA_HOME", _MACOS_DIR if mac else ".local/share"),
            state_dir=_user_dir("XDG_STATE_HOME", _MACOS_DIR if mac else ".local/state"),
        )

    @classmethod
    def under(cls, root: Path) -> Locations:
        """Three subdirectories of ``root``: for the demo and for tests."""
        root = Path(root)
        return cls(config_dir=root / "config", data_dir=root / "data", state_dir=root / "state")

    @property
    def config_file(self) -> Path:
        """The TOML file with the profiles."""
        return self.config_dir / "config.toml"

    @property
    def inventory_file(self) -> Path:
        """The SQLite inventory (accounts, projects, rate limiters, ...)."""
        return self.data_dir / "inventory.sqlite3"

    @property
    def journal_file(self) -> Path:
        """The SQLite audit journal."""
        return self.state_dir / "journal.sqlite3"


#: Under the home directory, each of the three on macOS (without its XDG variable).
_MACOS_DIR: Final = "Library/Application Support"


def _user_dir(variable: str, under_home: str) -> Path:
    """``$variable/bottui`` when it holds an absolute path, else ``~/under_home/bottui``."""
    value = os.environ.get(variable, "")
    if os.path.isabs(value):
        return Path(value, APP_NAME)
    return Path(_home(), under_home, APP_NAME)


def _home() -> str:
    """``$HOME`` when it is an absolute path, else the user's entry in the password database."""
    home = os.environ.get("HOME", "")
    if not os.path.isabs(home):
        with contextlib.suppress(KeyError):
            home = pwd.getpwuid(os.getuid()).pw_dir
    if not os.path.isabs(home):
        raise RuntimeError("could not determine the home directory: set HOME or XDG_*_HOME")
    return home


def ensure(directory: Path) -> Path:
    """Create ``directory`` (and missing parents) if needed; return it.

    A directory made here gets mode 0o700 (less whatever the umask removes).
    An existing directory is left as it is.
    """
    directory = Path(directory)
    if not directory.is_dir():
        directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    return directory


def sync_directory(directory: Path) -> None:
    """Make a new or renamed file's directory entry durable (POSIX; a no-op elsewhere)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def real_path(path: Path | str) -> Path:
    """``path`` with its symbolic links followed, as far as they go; never raises.

    ``Path.resolve()`` raises ``RuntimeError`` (Python 3.11) or ``OSError``
    for a link that points at itself; a store that names its file (a lock
    lane, a URI) must not crash on one: opening the file then fails with a
    clear error instead.
    """
    return Path(os.path.realpath(path))


# A file written for a person: whole or not at all, not through a symlink, not over a file.
#
# Every file bottui writes for a person (``revoke --output``, ``journal
# --export``, ``inventory export``, the TUI's bulk export) goes through here.
# The text goes to a new temporary file next to the target (created
# exclusively, never an existing one), is flushed to disk, and is put in
# place in one step once complete: a reader never sees half a file, and a
# failed export leaves the previous file as it was.
#
# Before anything is written (and before a bulk run sends anything), the
# target is checked (:func:`check_target`): a symbolic link is refused, even
# with ``overwrite`` (it would write where the link points, or silently
# replace the link); anything but a regular file (a directory, a device) is
# refused; an existing file is refused unless ``overwrite`` (the CLI's
# ``--overwrite``). Without ``overwrite`` the file is put in place with a hard
# link, which fails if a file appeared meanwhile, so nothing is replaced even
# then. Refusals are :class:`~bottui.store.store_errors.StoreFileError` (exit 2).


#: What the CLI's refusal says to do instead.
OVERWRITE_HINT = "--overwrite replaces it"


def check_target(path: Path, *, overwrite: bool) -> None:
    """Refuse a target that is a symlink, not a regular file, or exists without ``overwrite``.

    Raises:
        StoreFileError: the refusal, naming the file (exit 2).
    """
    shown = clean(str(path))
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreFileError(
            f"Cannot write {clean(path.name)}", f"{shown}: {exc.strerror or exc}", path=path
        ) from None
    if stat.S_ISLNK(found.st_mode):
        raise StoreFileError(
            "Refused a symbolic link",
            f"{shown} is a symbolic link: not followed, not replaced; name a file of its own",
            path=path,
        )
    if not stat.S_ISREG(found.st_mode):
        raise StoreFileError(
            "Not a regular file", f"{shown} exists and is not a regular file", path=path
        )
    if not overwrite:
        raise StoreFileError(
            "The file exists", f"{shown}: not replaced ({OVERWRITE_HINT})", path=path
        )


class AtomicText:
    """A text file being written next to ``path``; :meth:`commit` puts it in place.

    A context manager: leaving the block normally commits, an exception
    discards the temporary file. :meth:`commit` may also be called early.
    """

    def __init__(
        self, path: Path, *, overwrite: bool, newline: str | None = "\n", mode: int = 0o666
    ) -> None:
        self.path = Path(path)
        self.overwrite = overwrite
        check_target(self.path, overwrite=overwrite)
        # os.urandom is what secrets.token_hex reads (importing secrets: ~5 ms at a Tab).
        self._tmp = self.path.with_name(f".{self.path.name}.{os.urandom(6).hex()}.tmp")
        try:
            # ``mode`` (less the umask) from the start: never readable by more, even briefly.
            fd = os.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
            self.handle: IO[str] = open(fd, "w", encoding="utf-8", newline=newline)  # noqa: SIM115
        except OSError as exc:
            raise self._error(exc) from None
        self._done = False

    def __repr__(self) -> str:
        return f"AtomicText({str(self.path)!r})"

    def _error(self, exc: OSError) -> StoreFileError:
        return StoreFileError(
            f"Cannot write {clean(self.path.name)}",
            f"{clean(str(self.path))}: {exc.strerror or exc}",
            path=self.path,
        )

    def write(self, text: str) -> None:
        """Append ``text`` (StoreFileError when the disk refuses it)."""
        try:
            self.handle.write(text)
        except OSError as exc:
            self.discard()
            raise self._error(exc) from None

    def commit(self) -> Path:
        """Flush to disk and put the file in place; returns its path.

        Raises:
            StoreFileError: it could not be written, or the target became a
                symlink, a file (without ``overwrite``) or something else meanwhile.
        """
        if self._done:
            return self.path
        try:
            self.handle.flush()
            os.fsync(self.handle.fileno())
            self.handle.close()
            check_target(self.path, overwrite=self.overwrite)
            self._place()
        except OSError as exc:
            self.discard()
            raise self._error(exc) from None
        except BaseException:
            self.discard()
            raise
        self._done = True
        return self.path

    def _place(self) -> None:
        if self.overwrite:
            os.replace(self._tmp, self.path)  # replaces a regular file; never follows a link
            return
        try:
            os.link(self._tmp, self.path)  # fails if anything appeared at the path meanwhile
        except FileExistsError:
            raise StoreFileError(
                "The file exists",
                f"{clean(str(self.path))}: not replaced ({OVERWRITE_HINT})",
                path=self.path,
            ) from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                raise
            # No hard links here (some file systems): checked just above instead.
            os.replace(self._tmp, self.path)
            return
        os.unlink(self._tmp)

    def discard(self) -> None:
        """Drop the temporary file; the target is left as it was."""
        self._done = True
        with contextlib.suppress(OSError, ValueError):
            self.handle.close()
        with contextlib.suppress(OSError):
            self._tmp.unlink()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def write_atomic(
    path: Path, chunks: Iterable[str], *, overwrite: bool = False, newline: str | None = "\n"
) -> None:
    """Write ``chunks`` (UTF-8) to ``path`` as :class:`AtomicText` does.

    Args:
        path: The file to create (or replace, with ``overwrite``).
        chunks: The text, in pieces.
        overwrite: Replace an existing regular file (never a symlink).
        newline: Passed to :func:`open` (``""`` for CSV, which writes its own).

    Raises:
        StoreFileError: refused (see the module), or it cannot be written.
    """
    with AtomicText(Path(path), overwrite=overwrite, newline=newline) as out:
        for chunk in chunks:
            out.write(chunk)


# One live bulk run per input: an OS file lock next to the journal.
#
# Two runs of the same input (same profile, account, project and input hash)
# share one run id; both sending every id would send each twice. The first
# run holds an exclusive ``flock`` on ``bulk-runs/<key>.lock`` in the state
# directory (the key: :func:`bottui.ops.bulk.journaling.run_key`, a hash made
# there, so that hashlib, ~3 ms, is not imported with :class:`Locations` at a
# Tab) for as long as it runs, with its pid, host and run id written in
# the file; a second run finds the lock taken and is refused, naming them.
# The operating system drops the lock when its holder ends in any way,
# SIGKILL included, so a stale lock never blocks a ``--resume``.
#
# ``fcntl`` locks exist on Linux and macOS. Where there is none (Windows),
# :func:`acquire_run_lock` returns None: the run goes ahead unguarded, and the caller
# warns.


try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


LOCK_DIR: Final = "bulk-runs"
_MAX_HOLDER_BYTES: Final = 4096


class RunLive(Exception):
    """Another process holds the lock of this run; ``holder`` is what it wrote."""

    def __init__(self, holder: dict[str, Any]) -> None:
        self.holder = holder
        super().__init__(describe_holder(holder))


def describe_holder(holder: dict[str, Any]) -> str:
    """``pid 123 on host h (run #7, started 2026-...)`` from a lock file's contents."""
    pid = holder.get("pid")
    host = holder.get("host")
    words = (
        f"pid {pid if isinstance(pid, int) else '?'} on {host if isinstance(host, str) else '?'}"
    )
    extra = []
    if isinstance(holder.get("runId"), int):
        extra.append(f"run #{holder['runId']}")
    if isinstance(holder.get("started"), str):
        extra.append(f"started {holder['started']}")
    return f"{words} ({', '.join(extra)})" if extra else words


class RunLock:
    """A held lock; :meth:`release` (or the process's end) lets it go."""

    def __init__(self, path: Path, fd: int, holder: dict[str, Any]) -> None:
        self.path = path
        self._fd: int | None = fd
        self.holder = holder

    def __repr__(self) -> str:
        return f"RunLock({str(self.path)!r})"

    def note_run(self, run_id: int | None) -> None:
        """Add the run id to what a refused second run is told."""
        if run_id is not None and self._fd is not None:
            self.holder["runId"] = run_id
            _write_holder(self._fd, self.holder)

    def release(self) -> None:
        """Let the lock go (the file stays: removing it would race a new holder)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the last descriptor drops the flock


def acquire_run_lock(state_dir: Path, key: str) -> RunLock | None:
    """Take the lock of run ``key`` without waiting.

    Returns None where the system has no ``flock``.

    Raises:
        RunLive: another process holds it.
        OSError: the lock file cannot be made or opened.
    """
    if fcntl is None:
        return None
    path = ensure(state_dir / LOCK_DIR) / f"{key}.lock"
    # No O_TRUNC: the file may hold the live holder's description.
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        live = _read_holder(fd)
        os.close(fd)
        raise RunLive(live) from None
    except BaseException:
        os.close(fd)
        raise
    holder: dict[str, Any] = {
        "pid": os.getpid(),
        "host": os.uname().nodename,  # socket.gethostname()'s answer; socket: ~4 ms at a Tab
        "started": stamp(system_clock()),
    }
    _write_holder(fd, holder)
    return RunLock(path, fd, holder)


def _write_holder(fd: int, holder: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the description is a courtesy; the lock holds
        data = json.dumps(holder).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        data = os.pread(fd, _MAX_HOLDER_BYTES, 0)
        holder = json.loads(data.decode("utf-8")) if data else {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        holder = {}
    return holder if isinstance(holder, dict) else {}
