"""Tokens from systemd's credentials (``LoadCredential=``), for ``bottui run-due``.

systemd puts each credential in a file of ``$CREDENTIALS_DIRECTORY``, a
directory only the service can read, that exists while it runs: no token in
the unit file, the environment of other processes, or the journal.
:func:`read_credentials` reads the two bottui knows, ``bottui-api-key`` and
``bottui-access-token``, as the environment variables they stand for
(``BOTTUI_API_KEY``, ``BOTTUI_ACCESS_TOKEN``), into a mapping kept in
memory (never ``os.environ``, so no child process inherits them). A profile's
own tokens (:mod:`bottui.store.env_tokens`) come from
``bottui-api-key-<PROFILE>`` and ``bottui-access-token-<PROFILE>``, read as
``BOTTUI_API_KEY_<PROFILE>`` / ``BOTTUI_ACCESS_TOKEN_<PROFILE>`` (the name
upper-cased, ``[A-Za-z0-9_]`` only); two files that would give the same
variable (``-prod`` and ``-PROD``) are refused, never guessed.

Read safely: only those names, no symbolic link followed
(``O_NOFOLLOW``), a regular file of at most 4 KiB, one line (the newline at
its end dropped). Anything else is refused with a message that names the
file, never its content.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Final

from bottui.store.errors import StoreError

#: Credential file name -> the environment variable it stands for.
CREDENTIALS: Final = {
    "bottui-api-key": "BOTTUI_API_KEY",
    "bottui-access-token": "BOTTUI_ACCESS_TOKEN",
}
_MAX: Final = 4096
#: A profile's own credential: ``bottui-api-key-<PROFILE>`` (name upper-cased in the variable).
_PER_PROFILE: Final = re.compile(r"(bottui-api-key|bottui-access-token)-([A-Za-z0-9_]+)")


class CredentialFileRefused(StoreError):
    """A credential file that is not a small regular file of one line (exit 2)."""


def _names(directory: str | os.PathLike[str]) -> dict[str, str]:
    """Credential file name -> variable, for the files ``directory`` holds."""
    names = dict(CREDENTIALS)
    try:
        listed = sorted(os.listdir(directory))
    except OSError:
        return names
    claimed: dict[str, str] = {}
    for name in listed:
        match = _PER_PROFILE.fullmatch(name)
        if match is None:
            continue
        variable = f"{CREDENTIALS[match.group(1)]}_{match.group(2).upper()}"
        if variable in claimed:
            raise CredentialFileRefused(
                f"Credentials {claimed[variable]} and {name} refused",
                f"both would be {variable}: keep one (a token must never go to another project)",
            )
        claimed[variable] = name
        names[name] = variable
    return names


def read_credentials(directory: str | os.PathLike[str]) -> dict[str, str]:
    """The tokens in ``directory`` (``$CREDENTIALS_DIRECTORY``) by environment variable name."""
    found: dict[str, str] = {}
    for name, variable in _names(directory).items():
        path = Path(directory) / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise CredentialFileRefused(
                f"Cannot read the credential {name}", f"{path}: {exc.strerror}"
            ) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX:
                raise CredentialFileRefused(
                    f"Credential {name} refused",
                    f"{path} must be a regular file of at most {_MAX} bytes",
                )
            data = os.read(fd, _MAX + 1)
        finally:
            os.close(fd)
        text = data.decode("utf-8", errors="replace").removesuffix("\n").removesuffix("\r")
        if not text or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
            raise CredentialFileRefused(
                f"Credential {name} refused", f"{path} must hold one token on one line"
            )
        found[variable] = text
    return found


__all__ = ["CREDENTIALS", "CredentialFileRefused", "read_credentials"]
