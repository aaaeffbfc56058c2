"""The stylesheet cache falls back to Textual's plain stylesheet, and nothing else is private.

The cache (``bottui/tui/perf/stylesheet.py``, ``bottui/tui/perf/textual_private.py``)
leans on Textual's private API, so it runs only on the Textual it was tested
on. These tests force the fallback and check that every screen is then
styled, and drawn, exactly as with the cache; and that no other module of
``bottui`` touches a private Textual name. The cache's own behaviour is
tested in ``test_startup_machinery.py``.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest
from textual.app import App
from textual.css.model import RuleSet
from textual.css.styles import RULE_NAMES
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

from bottui.tui.app import BottuiApp
from bottui.tui.perf import stylesheet, textual_private
from bottui.tui.perf.stylesheet import CSS_SOURCE, whole_css
from bottui.tui.perf.textual_private import PRIVATE_STATE, SharedParseStylesheet, as_tested
from bottui.tui.ui_rules import MODE_KEYS
from tests.tui.conftest import SNAP_SIZE
from tests.tui.helpers import settle

ROOT = Path(__file__).resolve().parents[2]
BOTTUI = ROOT / "bottui"
WRAPPER = BOTTUI / "tui" / "perf" / "textual_private.py"
#: Tested on a release other than the one installed: as after an upgrade to 8.2.9.
NOT_INSTALLED = "0.0.0.dev0"


@pytest.fixture
def fresh_check() -> Iterator[None]:
    """``as_tested`` is computed once a process: forget it around the test."""
    as_tested.cache_clear()
    yield
    as_tested.cache_clear()


# -- the check that lets the private uses run ------------------------------------------


def test_the_private_uses_run_on_the_tested_textual(fresh_check: None) -> None:
    if not textual_private.installed_is_tested():
        pytest.skip(f"Textual is not {textual_private.TESTED_TEXTUAL}: the cache is off here")
    assert as_tested()


def test_another_textual_release_turns_them_off(
    fresh_check: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(textual_private, "TESTED_TEXTUAL", NOT_INSTALLED)
    assert not textual_private.installed_is_tested()
    assert not as_tested()
    sheet = stylesheet.start_stylesheet({"accent": "red"}, "limiters")
    assert type(sheet) is Stylesheet  # Textual's own, with the whole file from the start
    assert sheet.source[CSS_SOURCE].content == whole_css()


def test_a_missing_private_attribute_turns_them_off(
    fresh_check: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(textual_private, "installed_is_tested", lambda: True)
    assert as_tested()
    as_tested.cache_clear()
    original = Stylesheet.__init__

    def renamed(self: Stylesheet, *, variables: dict[str, str] | None = None) -> None:
        original(self, variables=variables)
        vars(self)["_rule_sets"] = vars(self).pop("_rules")  # as if upstream renamed it

    monkeypatch.setattr(Stylesheet, "__init__", renamed)
    assert not as_tested()
    assert type(stylesheet.start_stylesheet({}, "limiters")) is Stylesheet


def test_another_parse_rules_signature_turns_them_off(
    fresh_check: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(textual_private, "installed_is_tested", lambda: True)

    def changed(self: Stylesheet, css: str, location: object, *, flags: int = 0) -> list[RuleSet]:
        return []

    monkeypatch.setattr(Stylesheet, "_parse_rules", changed)
    assert not as_tested()


# Not ``_variables``: Textual's own reparse reads it too, and a Textual
# without it fails as_tested, so the class is never made there.
@pytest.mark.parametrize("missing", [name for name in PRIVATE_STATE if name != "_variables"])
def test_a_reparse_without_the_private_state_is_textuals_own(missing: str) -> None:
    # Made on a tested Textual, then a private attribute is gone: writing
    # it would leave the old rules in force; Textual's own reparse is used.
    sheet = SharedParseStylesheet(variables={"accent": "red"})
    sheet.add_source("Static { color: $accent; }", read_from=("test", missing))
    sheet.parse()
    sheet.set_variables({"accent": "blue"})
    expected = Stylesheet(variables={"accent": "blue"})
    expected.source = dict(sheet.source)
    expected.reparse()
    del vars(sheet)[missing]
    sheet.reparse()
    assert [rule.css for rule in sheet.rules] == [rule.css for rule in expected.rules]


# -- the fallback styles every screen as the cache does --------------------------------


def _computed(node: DOMNode) -> tuple[str, ...]:
    styles = node.styles
    return tuple(f"{name}={getattr(styles, name)!r}" for name in RULE_NAMES)


def _where(node: DOMNode) -> str:
    return "/".join(
        f"{n.__class__.__name__}#{n.id}.{'.'.join(sorted(n.classes))}"
        for n in reversed(node.ancestors_with_self)
    )


async def _every_screen(
    make_snap_app: Callable[..., BottuiApp],
) -> tuple[type[Stylesheet], dict[str, list[tuple[str, tuple[str, ...]]]], dict[str, str]]:
    """Each screen (keys 1..5): every node's computed styles, and the screen as drawn."""
    styles: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    drawn: dict[str, str] = {}
    app = make_snap_app()
    async with app.run_test(size=SNAP_SIZE) as pilot:
        await settle(pilot)
        for key, mode in MODE_KEYS.items():
            await pilot.press(key)
            await settle(pilot)
            assert app.current_mode == mode
            nodes = list(app.screen.walk_children(with_self=True))
            styles[mode] = [(_where(node), _computed(node)) for node in nodes]
            drawn[mode] = app.export_screenshot()
    return type(app.stylesheet), styles, drawn


async def test_without_the_cache_every_screen_is_styled_and_drawn_the_same(
    fresh_check: None,
    monkeypatch: pytest.MonkeyPatch,
    make_snap_app: Callable[..., BottuiApp],
) -> None:
    if not as_tested():
        pytest.skip(f"Textual is not {textual_private.TESTED_TEXTUAL}: only the fallback runs")
    cached_type, cached, cached_drawn = await _every_screen(make_snap_app)
    assert cached_type is SharedParseStylesheet
    as_tested.cache_clear()
    monkeypatch.setattr(textual_private, "TESTED_TEXTUAL", NOT_INSTALLED)
    plain_type, plain, plain_drawn = await _every_screen(make_snap_app)
    assert plain_type is Stylesheet
    for mode in MODE_KEYS.values():
        assert len(cached[mode]) > 5
        assert plain[mode] == cached[mode], mode
        assert plain_drawn[mode] == cached_drawn[mode], mode


# -- no private Textual name outside the wrapper ----------------------------------------

_PRIVATE = re.compile(r"^_[a-z]\w*$")
_SELF_ASSIGNED = re.compile(r"self\.(_[a-z]\w*)\s*(?::[^=\n]+)?=[^=]")
#: Textual's handler naming: it looks up ``_on_x`` and ``on_x`` in each class
#: of the MRO in turn, so a subclass's ``_on_paste`` adds a handler, it does
#: not replace Input's (both run unless one prevents the default).
_HANDLER = re.compile(r"^_on_\w+$")


@cache
def _textual_defined(base: type) -> frozenset[str]:
    """The private names one Textual class defines, or sets on self in its source."""
    names = {name for name in vars(base) if _PRIVATE.match(name)}
    with contextlib.suppress(OSError, TypeError):  # a class made at run time
        names |= set(_SELF_ASSIGNED.findall(inspect.getsource(base)))
    return frozenset(names)


def _textual_private(cls: type) -> set[str]:
    """The private names of the Textual classes in ``cls``'s MRO."""
    found: set[str] = set()
    for base in cls.__mro__:
        if base.__module__.startswith("textual."):
            found |= _textual_defined(base)
    return found


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _private_uses(path: Path) -> Iterator[str]:
    """``file:line: name`` for each private Textual name a module defines or reads."""
    import importlib

    module = importlib.import_module(_module_of(path))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    common = set().union(*(_textual_private(cls) for cls in (App, Screen, Widget, Stylesheet)))
    ours = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            cls = getattr(module, node.name, None)
            if not isinstance(cls, type) or not issubclass(cls, DOMNode | Stylesheet):
                continue
            theirs = _textual_private(cls)
            for inner in ast.walk(node):
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    name = inner.name
                elif isinstance(inner, ast.Attribute):
                    name = inner.attr
                else:
                    continue
                if name in theirs and not _HANDLER.match(name):
                    yield f"{path.relative_to(ROOT)}:{inner.lineno}: {node.name}.{name}"
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in common
            and node.attr not in ours
            and not _HANDLER.match(node.attr)
            and not (isinstance(node.value, ast.Name) and node.value.id == "self")
        ):
            yield f"{path.relative_to(ROOT)}:{node.lineno}: {node.attr}"


def test_no_module_but_the_wrapper_touches_a_private_textual_name() -> None:
    found = sorted(
        {
            use
            for path in BOTTUI.rglob("*.py")
            if path != WRAPPER and "textual" in path.read_text(encoding="utf-8")
            for use in _private_uses(path)
        }
    )
    assert found == []


def test_the_check_sees_a_private_use() -> None:
    # The wrapper itself is the one module that may: the check must see it there.
    found = list(_private_uses(WRAPPER))
    assert any("._parse_rules" in use for use in found)
    assert any("._rules_map" in use for use in found)


def test_every_test_file_a_module_names_exists() -> None:
    named = {
        match
        for path in BOTTUI.rglob("*.py")
        for match in re.findall(r"tests/[\w/]+\.py", path.read_text(encoding="utf-8"))
    }
    assert "tests/tui/test_stylesheet_cache.py" in named
    assert [name for name in sorted(named) if not (ROOT / name).is_file()] == []
