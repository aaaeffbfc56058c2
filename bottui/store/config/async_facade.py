"""The profiles of ``config.toml`` behind an async facade: every read and edit off the loop.

:class:`AsyncConfigStore` wraps :class:`~bottui.store.config.config_file.ConfigStore`
the way :mod:`bottui.store.inventory.inventory_store` wraps the inventory: each call
is awaited on the shared :class:`~bottui.store.executor.StoreExecutor`.
Edits go through the file's write lane (one thread), so two edits of this
process never interleave their read-modify-replace of the file; reads go
through a read lane of their own, so a read never waits behind an edit's
fsync (the file is replaced atomically: a read sees the old or the new
text, never half).

The TUI and the ops use this alone (:mod:`bottui.ops.profiles`); a
synchronous ``ConfigStore`` edit under ``bottui/tui`` or ``bottui/ops`` fails
``tests/test_no_sync_store_calls.py``. A synchronous *read* before an event
loop runs (the CLI's and the TUI's start-up) is fine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bottui.store.config.config_file import ConfigStore
from bottui.store.config.config_model import UNCHANGED, Config, Profile, ProjectSettings, Unchanged
from bottui.store.executor import StoreExecutor, shared_executor
from bottui.store.files import Locations, real_path

R = TypeVar("R")


class AsyncConfigStore:
    """``config.toml``'s profiles, every call awaited on the store executor.

    Args:
        locations: Where ``config.toml`` lives.
        executor: The executor to run on (the process's shared one unless given).
    """

    def __init__(self, locations: Locations, *, executor: StoreExecutor | None = None) -> None:
        self._store = ConfigStore(locations)
        self._executor = executor or shared_executor()
        key = str(real_path(self._store.path))
        self._write_lane = f"config-write:{key}"
        self._read_lane = f"config-read:{key}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r})"

    @property
    def path(self) -> Path:
        """The configuration file."""
        return self._store.path

    async def _write(self, fn: Callable[[], R]) -> R:
        return await self._executor.call(fn, lane=self._write_lane)

    async def _read(self, fn: Callable[[], R]) -> R:
        return await self._executor.call(fn, lane=self._read_lane)

    # -- reads ---------------------------------------------------------------------

    async def load(self) -> Config:
        """The configuration (see :meth:`ConfigStore.load`)."""
        return await self._read(self._store.load)

    # -- edits ---------------------------------------------------------------------

    async def save(self, config: Config) -> None:
        """Make the file hold ``config``, keeping comments on everything that stays."""
        await self._write(lambda: self._store.save(config))

    async def add_profile(self, profile: Profile, *, replace: bool = False) -> None:
        """Add ``profile`` (see :meth:`ConfigStore.add_profile`)."""
        await self._write(lambda: self._store.add_profile(profile, replace=replace))

    async def remove_profile(self, name: str) -> None:
        """Remove the profile ``name`` (and unset it as current if it was)."""
        await self._write(lambda: self._store.remove_profile(name))

    async def use(self, name: str) -> None:
        """Make ``name`` the current profile."""
        await self._write(lambda: self._store.use(name))

    async def set_theme(self, name: str | None) -> None:
        """Remember the Textual theme ``name``; ``None`` returns to the default."""
        await self._write(lambda: self._store.set_theme(name))

    async def set_project_settings(
        self, profile: str, account: str, project: str, settings: ProjectSettings | None
    ) -> None:
        """Set (or with ``None`` remove) the threshold settings of one project."""
        await self._write(
            lambda: self._store.set_project_settings(profile, account, project, settings)
        )

    async def set_defaults(
        self,
        profile: str,
        *,
        account: str | Unchanged | None = UNCHANGED,
        project: str | Unchanged | None = UNCHANGED,
    ) -> None:
        """Set the default account and/or project of ``profile``; ``None`` clears one."""
        await self._write(
            lambda: self._store.set_defaults(profile, account=account, project=project)
        )


__all__ = [
    "AsyncConfigStore",
]
