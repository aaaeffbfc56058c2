"""A file written for a person: whole or not at all, not through a symlink, not over a file.

Every file bottui writes for a person (``revoke --output``, ``journal
--export``, ``inventory export``, the TUI's bulk export) goes through here.
The text goes to a new temporary file next to the target (created
exclusively, never an existing one), is flushed to disk, and is put in
place in one step once complete: a reader never sees half a file, and a
failed export leaves the previous file as it was.

Before anything is written (and before a bulk run sends anything), the
target is checked (:func:`check_target`): a symbolic link is refused, even
with ``overwrite`` (it would write where the link points, or silently
replace the link); anything but a regular file (a directory, a device) is
refused; an existing file is refused unless ``overwrite`` (the CLI's
``--overwrite``). Without ``overwrite`` the file is put in place with a hard
link, which fails if a file appeared meanwhile, so nothing is replaced even
then. Refusals are :class:`~bottui.store.db_errors.StoreFileError` (exit 2).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Self

from bottui.plaintext import clean
from bottui.store.db_errors import StoreFileError

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

    def __init__(self, path: Path, *, overwrite: bool, newline: str | None = "\n") -> None:
        self.path = Path(path)
        self.overwrite = overwrite
        check_target(self.path, overwrite=overwrite)
        self._tmp = self.path.with_name(f".{self.path.name}.{secrets.token_hex(6)}.tmp")
        try:
            self.handle: IO[str] = open(  # noqa: SIM115
                self._tmp, "x", encoding="utf-8", newline=newline
            )
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


__all__ = ["OVERWRITE_HINT", "AtomicText", "check_target", "write_atomic"]
