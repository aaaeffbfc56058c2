"""A Textual stylesheet whose parsed rules survive a re-parse.

Textual 8.2.8 re-parses every CSS source from scratch each time a screen is
first shown and each time the theme changes (``Stylesheet.reparse`` builds a
fresh ``Stylesheet`` with an empty parse cache). For bottui that is the
single largest cost between start and first frame: our ``bottui.tcss`` plus
the default CSS of every widget, tokenised again two or three times (about
30 ms of a ~170 ms budget, see ``tests/bench/startup.py``).

The rules parsed from one CSS text depend only on that text, where it was
read from, its flags and the CSS variables (the theme). So they are kept in
one process-wide cache under exactly that key, and a re-parse with unchanged
variables costs nothing. A theme change has other variables, hence another
key, and is parsed for real. Textual is pinned (``textual==8.2.8`` in
pyproject.toml) because :meth:`reparse` mirrors its private counterpart;
``tests/tui/test_stylesheet_cache.py`` checks it still does.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import ClassVar

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation

#: Enough for every source of every theme a session is likely to try; the
#: oldest entries go first when a long session keeps switching themes.
_CACHE_LIMIT = 2048

_Key = tuple[frozenset[tuple[str, str]], str, CSSLocation, bool, int, str]


class SharedParseStylesheet(Stylesheet):
    """A :class:`Stylesheet` that shares parsed rules across re-parses."""

    _shared: ClassVar[OrderedDict[_Key, list[RuleSet]]] = OrderedDict()

    def __init__(self, *, variables: dict[str, str] | None = None) -> None:
        super().__init__(variables=variables)
        self._variables_key: frozenset[tuple[str, str]] | None = None

    def set_variables(self, variables: dict[str, str]) -> None:
        super().set_variables(variables)
        self._variables_key = None

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        if self._variables_key is None:
            self._variables_key = frozenset(self._variables.items())
        key: _Key = (self._variables_key, css, read_from, is_default_rules, tie_breaker, scope)
        shared = self._shared
        rules = shared.get(key)
        if rules is not None:
            shared.move_to_end(key)
            return rules
        rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        shared[key] = rules
        if len(shared) > _CACHE_LIMIT:
            shared.popitem(last=False)
        return rules

    def reparse(self) -> None:
        # Textual's own reparse, but into an instance of this class so that
        # the shared cache answers. Parsing into a separate stylesheet first
        # keeps this one intact when the CSS has an error, as upstream does.
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
