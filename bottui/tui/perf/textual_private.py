"""Every use of Textual's private API in bottui, each with a public fallback.

bottui leans on Textual internals in two places, both here:

* the stylesheet that shares parsed CSS rules across re-parses (see
  :mod:`bottui.tui.perf.stylesheet` for why). It overrides
  ``Stylesheet._parse_rules`` and mirrors ``Stylesheet.reparse``, which reads
  or writes five private attributes (``_variables``, ``_invalid_css``,
  ``_rules``, ``_rules_map``, ``_require_parse``);
* rows added to a ``DataTable`` without ``add_row`` (see
  :mod:`bottui.tui.perf.incremental_table` for why): :func:`add_blank_rows`,
  :func:`set_row_cells` and :func:`cells_changed` write the table's private
  ``_data``, ``_row_locations``, ``_update_count`` and
  ``_require_update_dimensions`` as ``add_row`` and ``update_cell`` do, minus
  the measuring. When :func:`table_as_tested` says no, the table adds its rows
  with ``add_row`` (every row before the first frame: slower, same screen);
* cells drawn without Rich's general layout: :class:`QuickCellsTable`
  overrides ``DataTable._render_cell`` (see there), and falls back to it;
* columns measured before a table draws, not only at its next idle:
  :class:`MeasuredTable` runs what ``DataTable._on_idle`` would (see there),
  and leaves it to that idle when the private shape is not as tested;
* whether a screen is still shown: :func:`still_shown` reads ``_pruning`` and
  ``_closing`` (a screen being removed is still attached while its widgets are
  already gone), and falls back to the public ``is_attached``.

Nothing else under ``bottui/`` may touch a private Textual name
(``tests/tui/test_stylesheet_cache.py`` checks it).

All of it was written against, and tested on, Textual :data:`TESTED_TEXTUAL`.
:func:`as_tested` says whether the installed Textual is that version with
that private shape; when it is not, :mod:`bottui.tui.perf.stylesheet` uses
Textual's plain ``Stylesheet`` instead, so an upgrade costs start-up time
(about 30 ms), never correctness. Should a private attribute still go
missing at run time, the stylesheet falls back to Textual's own method.

To move to a new Textual: compare ``textual/css/stylesheet.py`` with the
old one, update :class:`SharedParseStylesheet` if ``reparse`` changed, set
:data:`TESTED_TEXTUAL`, and run ``tests/tui``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Final

import textual
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.dom import DOMNode
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import CellType, Row, RowKey

#: The Textual release the private uses below were read from and tested on.
TESTED_TEXTUAL: Final = "8.2.8"

#: The private attributes of a ``Stylesheet`` that our ``reparse`` uses.
PRIVATE_STATE: Final = ("_variables", "_invalid_css", "_rules", "_rules_map", "_require_parse")

#: The parameters of ``Stylesheet._parse_rules`` on the tested release.
PARSE_RULES_PARAMETERS: Final = (
    "self",
    "css",
    "read_from",
    "is_default_rules",
    "tie_breaker",
    "scope",
)

#: The private attributes of a ``DataTable`` that the row functions write.
TABLE_STATE: Final = ("_data", "_row_locations", "_update_count", "_require_update_dimensions")

#: Enough for every source of every theme a session is likely to try; the
#: oldest entries go first when a long session keeps switching themes.
CACHE_LIMIT: Final = 2048

_Key = tuple[frozenset[tuple[str, str]], str, CSSLocation, bool, int, str]


def installed_is_tested() -> bool:
    """True if the ``textual`` package imported is release :data:`TESTED_TEXTUAL`.

    Read from the wheel's ``textual-X.Y.Z.dist-info`` beside the package:
    one ``stat``, where ``importlib.metadata`` would cost ~30 ms of start-up.
    An install laid out otherwise reads as untested (the slower, safe path).
    """
    site = Path(textual.__file__).resolve().parent.parent
    return (site / f"textual-{TESTED_TEXTUAL}.dist-info").is_dir()


def private_shape_is_tested() -> bool:
    """True if ``Stylesheet`` still has the private members we use, as we use them."""
    try:
        sheet = Stylesheet()
        code = Stylesheet._parse_rules.__code__
    except (AttributeError, TypeError):
        return False
    parameters = code.co_varnames[: code.co_argcount]
    return holds_private(sheet, PRIVATE_STATE) and parameters == PARSE_RULES_PARAMETERS


@cache
def as_tested() -> bool:
    """True when the private uses of this module may run (checked once a process)."""
    return installed_is_tested() and private_shape_is_tested()


def holds_private(obj: object, attributes: Sequence[str], methods: Sequence[str] = ()) -> bool:
    """True on the tested Textual when ``obj`` holds every private attribute and method named."""
    state = vars(obj)
    return (
        installed_is_tested()
        and all(name in state for name in attributes)
        and all(callable(getattr(obj, name, None)) for name in methods)
    )


class SharedParseStylesheet(Stylesheet):
    """A :class:`Stylesheet` that shares parsed rules across re-parses.

    The rules parsed from one CSS text depend only on that text, where it
    was read from, its flags and the CSS variables (the theme). So they are
    kept in one process-wide cache under exactly that key, and a re-parse
    with unchanged variables costs nothing. A theme change has other
    variables, hence another key, and is parsed for real.

    Made only when :func:`as_tested` (see :func:`bottui.tui.perf.stylesheet.start_stylesheet`).
    """

    _shared: ClassVar[OrderedDict[_Key, list[RuleSet]]] = OrderedDict()

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        # Prefixed: a plain ``_variables_key`` could one day be Textual's.
        self._bottui_variables_key: frozenset[tuple[str, str]] | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._bottui_variables_key = None

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        theme = self._bottui_variables_key
        if theme is None:
            try:
                variables = self._variables
            except AttributeError:  # renamed upstream: parse as Textual does
                return super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            theme = self._bottui_variables_key = frozenset(variables.items())
        key: _Key = (theme, css, read_from, is_default_rules, tie_breaker, scope)
        shared = self._shared
        rules = shared.get(key)
        if rules is not None:
            shared.move_to_end(key)
            return rules
        rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        shared[key] = rules
        if len(shared) > CACHE_LIMIT:
            shared.popitem(last=False)
        return rules

    def reparse(self) -> None:
        # Textual's own reparse, but into an instance of this class so that
        # the shared cache answers. Parsing into a separate stylesheet first
        # keeps this one intact when the CSS has an error, as upstream does.
        if not holds_private(self, PRIVATE_STATE):
            # Writing renamed attributes would succeed silently and leave the
            # old rules in force: Textual's own reparse is right, if slower.
            super().reparse()
            return
        stylesheet = type(self)(variables=self._variables)
        for read_from, (css, is_defaults, tie_breaker, scope) in self.source.items():
            stylesheet.add_source(
                css,
                read_from=read_from,
                is_default_css=is_defaults,
                tie_breaker=tie_breaker,
                scope=scope,
            )
        try:
            stylesheet.parse()
        except Exception:
            self._invalid_css.update(stylesheet._invalid_css)
            raise
        self._rules = stylesheet.rules
        self._rules_map = None
        self.source = stylesheet.source
        self._require_parse = False


# -- DataTable rows without add_row -----------------------------------------------------


def still_shown(node: DOMNode) -> bool:
    """Whether ``node`` is attached and not being removed.

    A worker that awaited something and then fills its screen asks this first:
    while a screen is removed (popped, or the app closing) Textual takes its
    widgets away before it cancels the screen's workers, and ``is_attached`` stays
    true meanwhile, so a worker waking in that window found ``#timed-executor``
    gone (``NoMatches``, a failure shown for a screen the operator had left).
    Without the private flags (another Textual), ``is_attached`` alone decides.
    """
    if not node.is_attached:
        return False
    return not (getattr(node, "_pruning", False) or getattr(node, "_closing", False))


def table_as_tested(table: DataTable[Any]) -> bool:
    """True when the row functions below may be used on ``table``."""
    return holds_private(table, TABLE_STATE, ("_highlight_cursor",))


def add_blank_rows(table: DataTable[Any], keys: Sequence[str]) -> None:
    """Append a row of height 1 per key, with no cells yet and nothing measured.

    What ``add_row`` does for each, once for all: the cells come later through
    :func:`set_row_cells` (the table asks for them with ``get_row`` when it
    draws the row), and the caller sets the columns' ``content_width``.
    ``add_row`` costs ~0.15 ms a row and measuring each cell ~0.05 ms more;
    this is a few microseconds a row.
    """
    if not keys:
        return
    locations, data, rows = table._row_locations, table._data, table.rows
    was_empty = not rows
    index = len(rows)
    for key in keys:
        row_key = RowKey(key)
        locations[row_key] = index
        data[row_key] = {}
        rows[row_key] = Row(row_key, 1)
        index += 1
    table._update_count += 1
    table._require_update_dimensions = True
    table.cursor_coordinate = table.cursor_coordinate  # clamped, as add_row does
    if was_empty and table.show_cursor and table.cursor_type != "none" and table.columns:
        table._highlight_cursor()  # add_row's RowHighlighted for the first row
    table.check_idle()
    table.refresh()


def set_row_cells(table: DataTable[Any], key: str, cells: Sequence[Any]) -> None:
    """Give a row added by :func:`add_blank_rows` its cells (or new ones), in column order.

    Safe while the table renders (nothing is refreshed); after changing cells
    of a row already drawn, call :func:`cells_changed`.
    """
    table._data[RowKey(key)] = dict(zip(table.columns, cells, strict=False))


def cells_changed(table: DataTable[Any]) -> None:
    """Redraw after :func:`set_row_cells` or a change of a column's ``content_width``."""
    table._update_count += 1
    table._require_update_dimensions = True
    table.check_idle()
    table.refresh()


# -- DataTable cells drawn without Rich's layout ---------------------------------------


def quick_cell_line(
    console: Console,
    cell: object,
    width: int,
    padding: int,
    options: ConsoleOptions,
    pre_style: Style,
    post_style: Style,
) -> list[Segment] | None:
    """A one-line cell as ``DataTable._render_cell`` draws it, or None if not such a cell.

    DataTable lays every cell out with Rich (``Styled(Padding(cell))`` through
    ``Console.render_lines``): ~0.1-0.2 ms a cell, most of a first frame of a
    screenful of rows. For a :class:`~rich.text.Text` of one line, no tab,
    default justification and "fold"/"crop" overflow, that fits its column
    or may not wrap (every cell of the Projects and Rate limiters tables once
    measured) this makes the same segments directly:
    Rich's own truncation and Text rendering, then the padding and styles
    ``Padding`` and ``Styled`` would add (tests compare both, segment by segment).
    """
    if type(cell) is not Text or options.justify is not None or options.overflow is not None:
        return None
    if cell.justify not in (None, "default") or cell.overflow not in (None, "fold", "crop"):
        return None
    inner = width - 2 * padding
    plain = cell.plain
    if inner < 1 or "\n" in plain or "\t" in plain:
        return None
    if cell.no_wrap is False and cell_len(plain) > inner:
        return None  # Rich word-wraps it and shows the first line: its own layout, then
    line = cell.copy()
    # What Text.wrap does to one line with no_wrap: the same calls, in order.
    line.rstrip_end(inner)
    line.truncate(inner, overflow=cell.overflow or "fold")
    segments = list(_JOIN.join([line]).render(console, end=""))
    # Padding's style is Style.null(); Styled then adds pre_style (and post_style) to each.
    plain_style = pre_style + post_style if post_style else pre_style
    side = [Segment(" " * padding, plain_style)] if padding else []
    out = list(side)
    for text, style, control in segments:
        if control:
            return None
        styled = pre_style + style
        out.append(Segment(text, styled + post_style if post_style else styled))
    used = line.cell_len
    if used < inner:
        out.append(Segment(" " * (inner - used), plain_style))
    out.extend(side)
    return out


# -- DataTable columns measured before the table draws ------------------------------------

#: The private members of a DataTable that :func:`measure_pending` reads and calls.
MEASURE_STATE: Final = ("_new_rows", "_updated_cells", "_require_update_dimensions")


def measure_pending(table: DataTable[Any]) -> None:
    """Measure what rows and cells added since the table last measured need, now.

    A DataTable sizes its auto-width columns in its own idle handler, and
    caches each drawn row under its update count. When the screen draws the
    table first (rows added from a worker while the machine is busy), the
    rows are cached at the old widths, and that cache outlives the
    measuring: the table stays cut at its headers' widths ("limite" for
    "limiter rl-search") until something else changes it. This is what
    ``_on_idle`` does, done before the draw; on another Textual, nothing
    (Textual's own idle measures, as before).
    """
    if not holds_private(table, MEASURE_STATE, ("_update_column_widths", "_update_dimensions")):
        return
    if table._updated_cells:
        cells = set(table._updated_cells)
        table._updated_cells.clear()
        table._update_column_widths(cells)
    if table._require_update_dimensions:
        table._require_update_dimensions = False
        rows = set(table._new_rows)
        table._new_rows.clear()
        table._update_dimensions(rows)


class MeasuredTable(DataTable[CellType]):
    """A DataTable whose columns fit their cells whenever it is drawn (:func:`measure_pending`).

    Every table bottui shows is one: what a table shows is what it holds.
    """

    def render_lines(self, crop: Region) -> list[Strip]:
        measure_pending(self)
        return super().render_lines(crop)


_JOIN = Text("\n")


class QuickCellsTable(MeasuredTable[Text]):
    """A DataTable that draws one-line Text cells with :func:`quick_cell_line`.

    Only on the tested Textual, for rows of height 1 outside fixed rows and
    columns; every other cell (the header too) is Textual's own
    ``_render_cell``, as is every cell on another Textual.
    """

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        quick = (
            row_index >= 0
            and column_index >= 0
            and not self.fixed_rows
            and not self.fixed_columns
            and quick_cells_as_tested(self)
        )
        if not quick:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        # DataTable's own cache key, so that its invalidation holds here too.
        cache_key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cache = self._cell_render_cache
        if cache_key in cache:
            lines: list[list[Segment]] = cache[cache_key]
            return lines
        row = self.rows.get(row_key)
        cell = self._get_row_renderables(row_index).cells[column_index]
        line = None
        if row is not None and row.height == 1 and not row.auto_height:
            component_style, post_style = self._get_styles_to_render_cell(
                False,
                False,
                False,
                hover,
                cursor,
                self.show_cursor,
                self._show_hover_cursor,
                self.cursor_foreground_priority == "css",
                self.cursor_background_priority == "css",
            )
            pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index})
            options = self.app.console_options
            line = quick_cell_line(
                self.app.console,
                cell,
                width,
                self.cell_padding,
                options,
                pre_style + component_style,
                post_style,
            )
        if line is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        cache[cache_key] = [line]
        return [line]


#: The private members of a DataTable that QuickCellsTable reads.
QUICK_CELL_STATE: Final = (
    "_row_locations",
    "_column_locations",
    "_cell_render_cache",
    "_show_hover_cursor",
    "_update_count",
    "_pseudo_class_state",
)


def quick_cells_as_tested(table: DataTable[Any]) -> bool:
    """True when :class:`QuickCellsTable` may draw ``table``'s cells itself (checked once)."""
    known: bool | None = getattr(table, "_bottui_quick_cells", None)
    if known is None:
        methods = ("_get_styles_to_render_cell", "_get_row_renderables")
        known = holds_private(table, QUICK_CELL_STATE, methods)
        table._bottui_quick_cells = known  # type: ignore[attr-defined]
    return known
