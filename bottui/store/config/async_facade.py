"""The profiles of ``config.toml`` behind an async facade: every read and edit off the loop.

:class:`AsyncConfigStore` wraps :class:`~bottui.store.config.config_file.ConfigStore`
the way :mod:`bottui.store.inventory.inventory_store` wraps the inventory: each call
is awaited on the shared :class:`~bottui.store.executor.StoreExecutor`, its methods
made once from the sync ones (:func:`~bottui.store.executor.reads`,
:func:`~bottui.store.executor.writes`).
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

from bottui.store.config.config_file import ConfigStore
from bottui.store.executor import OffLoop, StoreExecutor, reads, writes
from bottui.store.files import Locations


class AsyncConfigStore(OffLoop[ConfigStore]):
    """``config.toml``'s profiles, every call awaited on the store executor.

    Args:
        locations: Where ``config.toml`` lives.
        executor: The executor to run on (the process's shared one unless given).
    """

    def __init__(self, locations: Locations, *, executor: StoreExecutor | None = None) -> None:
        # One object for both lanes: it holds nothing open, each call reads the file afresh.
        store = ConfigStore(locations)
        super().__init__(store, store, kind="config", path=store.path, executor=executor)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r})"

    #: The configuration (see :meth:`ConfigStore.load`).
    load = reads(ConfigStore.load)
    save = writes(ConfigStore.save)
    add_profile = writes(ConfigStore.add_profile)
    remove_profile = writes(ConfigStore.remove_profile)
    use = writes(ConfigStore.use)
    set_theme = writes(ConfigStore.set_theme)
    set_project_settings = writes(ConfigStore.set_project_settings)
    set_defaults = writes(ConfigStore.set_defaults)


__all__ = [
    "AsyncConfigStore",
]
