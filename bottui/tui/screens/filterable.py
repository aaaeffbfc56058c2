"""A main screen whose table ``/`` filters: Projects, Rate limiters, Thresholds.

``/`` opens a line above the screen's table (:class:`FilterBar`, mounted on
first use: most sessions never filter, and the first frame is faster without
it). Typing narrows the table to the rows whose visible text holds what was
typed (any case); Enter goes back to the table with the filter kept and shown;
Esc (in the field, or on the screen while a filter is kept) clears it. The
table keeps every row (:attr:`~bottui.tui.widgets.entry_table.EntryTable.all_entries`):
actions that must see rows a filter hides (marked limiters) still do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.widgets import Input

from bottui.tui.screens.base import BottuiScreen
from bottui.tui.ui_rules import focus_shown
from bottui.tui.widgets.entry_table import EntryTable

if TYPE_CHECKING:
    # Imported when the bar is first mounted, after start-up (~2.5 ms).
    from bottui.tui.widgets.table_filter import FilterBar, FilterInput


class FilterableScreen(BottuiScreen):
    """A main screen with one table that ``/`` filters."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: taken in the app's own key loop, so the keys typed right
        # after it are routed once the field has focus (the table would pass
        # them on only after those keys were routed to it: "t" = token).
        Binding(
            "slash", "filter", "Filter the table", show=False, id="table.filter", priority=True
        ),
        Binding("escape", "clear_filter", "Clear the filter", show=False, id="table.unfilter"),
    ]

    def filter_table(self) -> EntryTable[Any]:
        """The table ``/`` filters (the screen's first)."""
        return self.query(EntryTable).first()

    def _filter_bar(self) -> FilterBar | None:
        bars = self.query("FilterBar")  # by name: its module may not be imported yet
        if not bars:
            return None
        from bottui.tui.widgets.table_filter import FilterBar

        return bars.first(FilterBar)

    @property
    def filter_text(self) -> str:
        """The text the table is filtered by ("" when none)."""
        return self.filter_table().row_filter.text

    @on(events.Mount)
    def _prepare_filter_bar(self) -> None:
        # Mounted hidden once the first frames are out (~10 ms they need not
        # wait for), so `/` shows and focuses it at once: keys typed right
        # after `/` (a burst over SSH) must reach the field, not the table.
        self.services.after_start(self._mount_filter_bar)

    async def _mount_filter_bar(self) -> FilterBar | None:
        if not self.is_attached:
            return None  # closed before start-up was over
        bar = self._filter_bar()
        if bar is None:
            from bottui.tui.widgets.table_filter import FilterBar

            bar = FilterBar()
            bar.display = False
            await self.mount(bar, before=self.filter_table())
        return bar

    async def action_filter(self) -> None:
        """Open the filter line (or go back to it) above the table."""
        table = self.filter_table()
        bar = self._filter_bar() or await self._mount_filter_bar()
        if bar is None:
            return
        if self.focused is bar.input:  # a "/" typed in the filter itself
            bar.input.insert_text_at_cursor("/")
            return
        bar.display = True
        bar.show_count(len(table.entries), table.total)
        # At once, not on the next idle (Widget.focus): the next key goes to the field.
        self.set_focus(bar.input)

    def leave_profile(self) -> list[str]:
        """A kept filter was typed for the old profile's rows: it goes, said."""
        dropped = super().leave_profile()
        text = self.filter_text
        if self.clear_filter() and text:
            dropped.append(f"the {self.SCREEN_TITLE} filter {text!r} was cleared")
        return dropped

    def action_clear_filter(self) -> None:
        """Clear the filter: every row again."""
        self.clear_filter()

    def clear_filter(self) -> bool:
        """Clear the filter if one is open or kept; False when there was none."""
        bar = self._filter_bar()
        if bar is None or not bar.display:
            return False
        table = self.filter_table()
        bar.input.value = ""
        bar.display = False
        table.set_filter("")
        focus_shown(table)  # never the hidden field, nor a table hidden while empty
        return True

    @on(Input.Changed, "#table-filter")
    def _filter_typed(self, event: Input.Changed) -> None:
        self.filter_table().set_filter(event.value)

    @on(Input.Submitted, "#table-filter")
    def _filter_kept(self) -> None:
        bar = self._filter_bar()
        if bar is not None and not bar.input.value.strip():
            self.clear_filter()
            return
        focus_shown(self.filter_table())

    def on_filter_input_cleared(self, _event: FilterInput.Cleared) -> None:
        """Esc in the filter's field: clear it (by handler name, as FilterInput is lazy)."""
        self.clear_filter()

    @on(EntryTable.Filtered)
    def _filtered(self, event: EntryTable.Filtered) -> None:
        bar = self._filter_bar()
        if bar is not None:
            if self.filter_table().row_filter.active:
                bar.display = True  # a narrowed table always says so ("0 of 1 shown")
            bar.show_count(event.shown, event.total)
