"""Write an export file whole or not at all.

The text goes to a temporary file next to the target, is flushed to disk,
and then replaces the target in one rename: a reader never sees half a file,
and a failed export leaves the previous file as it was.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from bottui.store.db_errors import StoreFileError


def write_atomic(path: Path, chunks: Iterable[str], *, newline: str | None = "\n") -> None:
    """Write ``chunks`` (UTF-8) to ``path`` atomically.

    Args:
        path: The file to create or replace.
        chunks: The text, in pieces.
        newline: Passed to :func:`open` (``""`` for CSV, which writes its own).

    Raises:
        StoreFileError: the file or its temporary sibling cannot be written.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "x", encoding="utf-8", newline=newline) as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise StoreFileError(
            f"Cannot write {path.name}", f"{path}: {exc.strerror or exc}", path=path
        ) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


__all__ = ["write_atomic"]
