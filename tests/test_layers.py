"""Each layer imports only the layers below it, and bottui's imports form no cycle.

Read from the source with ``ast``: the layer check reads every import of a module; the
cycle check builds the graph of bottui's modules from every import, inside functions too
(imports under ``if TYPE_CHECKING:`` do not count), and from the packages whose
``__init__`` an import runs; the last two checks count the imports made inside functions
(#29: imports at the top of the file; inside a function only for a measured heavy
third-party module or in one lazy registry).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "bottui"

# What each part of bottui may import of bottui itself.
ALLOWED: dict[str, set[str]] = {
    "plaintext": set(),
    "api": {"api", "plaintext", "__init__", "__version__"},
    "store": {"store", "api", "plaintext", "__init__", "__version__"},
    "sandbox": {"sandbox", "plaintext", "__init__", "__version__"},
    "ops": {"ops", "store", "api", "plaintext", "__init__", "__version__"},
    "tui": {"tui", "ops", "store", "api", "plaintext", "__init__", "__version__"},
    "cli": {"cli", "ops", "store", "api", "plaintext", "__init__", "__version__"},
}
# Single modules allowed more than their part: the CLI's entry points of the
# long-running faces (the TUI, the demo, the sandbox), imported lazily there only.
EXTRA_ALLOWED: dict[str, set[str]] = {
    "cli/apps.py": {"tui", "demo", "sandbox"},
}
# Third-party or stdlib modules a part must never import directly.
FORBIDDEN: dict[str, set[str]] = {
    "api": {"textual", "rich", "sqlite3", "keyring", "starlette", "uvicorn"},
    "store": {"textual", "rich", "httpx", "starlette", "uvicorn"},
    "sandbox": {"textual", "sqlite3", "keyring"},
    "ops": {"textual", "rich", "sqlite3", "httpx", "starlette", "uvicorn"},
    "tui": {"httpx", "sqlite3", "urllib", "starlette", "uvicorn", "keyring"},
    "cli": {"textual", "rich", "httpx", "sqlite3", "urllib", "starlette", "uvicorn"},
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "bottui":
                names.update(f"bottui.{alias.name}" for alias in node.names)
    return names


def _part(path: Path) -> str:
    rel = path.relative_to(ROOT)
    return rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 else rel.stem


def _modules(part: str) -> list[Path]:
    target = ROOT / part
    return sorted(target.rglob("*.py")) if target.is_dir() else [ROOT / f"{part}.py"]


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_layer_imports(part: str) -> None:
    problems: list[str] = []
    for module in _modules(part):
        allowed = ALLOWED[part] | EXTRA_ALLOWED.get(module.relative_to(ROOT).as_posix(), set())
        for name in _imports(module):
            top = name.split(".")[0]
            if top == "bottui":
                inner = name.split(".")[1] if "." in name else "__init__"
                if inner not in allowed:
                    problems.append(f"{module.relative_to(ROOT)} imports {name}")
            elif top in FORBIDDEN.get(part, set()):
                problems.append(f"{module.relative_to(ROOT)} imports {name}")
    assert not problems, "\n".join(problems)


def test_every_module_has_a_docstring() -> None:
    missing = [
        str(p.relative_to(ROOT))
        for p in ROOT.rglob("*.py")
        if p.name != "__init__.py" and ast.get_docstring(ast.parse(p.read_text())) is None
    ]
    assert not missing, missing


def test_no_module_over_1000_lines() -> None:
    # One concept is one module; 600-900 lines doing one thing is fine, past 1,000 is two things.
    long = {
        str(p.relative_to(ROOT)): n
        for p in sorted(ROOT.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 1000
    }
    assert not long, long


# -- the import graph (#29) ------------------------------------------------------------

#: The modules that import lazily, on purpose: the CLI's entry points of the long-running
#: faces (the TUI, the demo, the sandbox), and the TUI's one lazy registry (name ->
#: "module:attr", resolved with importlib: not an import statement, so not in the graph).
LAZY_REGISTRIES = {"bottui.cli.apps", "bottui.tui.lazy"}

#: Ratchets (#29): the count may only go down. Every function-level import of a bottui
#: module outside the lazy registries, and of the standard library, is still to be removed.
MAX_FUNCTION_IMPORTS_OF_BOTTUI = 69
MAX_FUNCTION_IMPORTS_OF_STDLIB = 3

#: Third-party modules imported inside functions, where, and why (``python -X importtime
#: -c "import X"``, cumulative, on the 2-core development machine).
LAZY_THIRD_PARTY: dict[str, tuple[set[str], str]] = {
    "aiohttp": ({"bottui.api.lean", "bottui.api.transport"}, "290 ms; not for --version"),
    "yarl": ({"bottui.api.lean", "bottui.api.transport"}, "comes with aiohttp (11 ms)"),
    "tomlkit": ({"bottui.store.config.config_file"}, "16 ms; only when the config is written"),
    "keyring": ({"bottui.store.keyring_tokens"}, "53 ms; token use only"),
    "textual": ({"bottui.tui.ui_rules"}, "textual.widgets.TextArea 5 ms; only on Tab"),
    "psycopg": (
        {
            "bottui.store.team.pg_store",
            "bottui.store.team.store_target",
            "bottui.store.team.read_rows",
        },
        "120 ms; team mode only",
    ),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement but those under ``if TYPE_CHECKING:``, and whether in a function."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        skipped = node.body if isinstance(node, ast.If) and _type_checking(node.test) else []
        for child in ast.iter_child_nodes(node):
            if any(child is s for s in skipped):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            inner = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            stack.append((child, in_function or inner))


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The names an import statement brings in: ``from package import module`` is the module."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = module.split(".")
        if MODULES[module].name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def _bottui_module(name: str) -> str:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def _all_imports() -> Iterator[tuple[str, str, int, bool]]:
    """(importing module, imported name, line, inside a function) for every import."""
    for module, path in MODULES.items():
        for node, in_function in _import_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported(module, node):
                yield module, name, node.lineno, in_function


def _packages_run(importer: str, target: str) -> set[str]:
    """The packages whose ``__init__`` importing ``target`` runs: its own, not the importer's.

    ``import bottui.a.b.c`` runs ``bottui/a/__init__.py`` and ``bottui/a/b/__init__.py``
    first, and whatever those import; the importer's own packages ran before it did.
    """
    parts = target.split(".")
    above = {".".join(parts[:i]) for i in range(1, len(parts))}
    mine = {".".join(importer.split(".")[:i]) for i in range(1, importer.count(".") + 2)}
    return {package for package in above - mine if package in MODULES}


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for module, name, _line, _in_function in _all_imports():
        if name.split(".")[0] == "bottui" and (target := _bottui_module(name)):
            graph[module].add(target)
            graph[module].update(_packages_run(module, target))
    return graph


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}, "e": {"a"}}
    components = sorted(_strongly_connected(graph))
    assert components == [["a", "b", "c"], ["d"], ["e"]]


def test_importing_a_module_runs_its_packages() -> None:
    # bottui.ops.timed's __init__ imports its submodules: a module outside the package that
    # imports one of them imports the __init__ too; a module inside it already ran it.
    outside = _packages_run("bottui.ops.mutations", "bottui.ops.timed.schedule")
    assert outside == {"bottui.ops.timed"}
    assert _packages_run("bottui.ops.timed.execute", "bottui.ops.timed.schedule") == set()
    graph = _graph()
    assert "bottui.store.journal" in graph["bottui.ops.mutations"]
    assert all(_packages_run(m, target) <= graph[m] for m in graph for target in graph[m])


def test_no_import_cycle() -> None:
    graph = _graph()
    cycles = [c for c in _strongly_connected(graph) if len(c) > 1 or c[0] in graph[c[0]]]
    shown = "\n".join(f"{len(c)} modules: {', '.join(c)}" for c in cycles)
    assert not cycles, shown


def test_function_level_imports_of_bottui_only_in_the_lazy_registries() -> None:
    found = [
        f"{module}:{line} imports {name}"
        for module, name, line, in_function in _all_imports()
        if in_function and name.split(".")[0] == "bottui" and module not in LAZY_REGISTRIES
    ]
    print("\n".join(found))
    assert len(found) <= MAX_FUNCTION_IMPORTS_OF_BOTTUI, f"{len(found)} imports in functions"


def test_function_level_imports_of_other_modules_are_measured() -> None:
    stdlib = []
    problems = []
    for module, name, line, in_function in _all_imports():
        top = name.split(".")[0]
        if not in_function or top == "bottui":
            continue
        if top in sys.stdlib_module_names:
            stdlib.append(f"{module}:{line} imports {name}")
        elif module not in LAZY_THIRD_PARTY.get(top, (set(), ""))[0]:
            problems.append(f"{module}:{line} imports {name} inside a function")
    assert not problems, "\n".join(problems)
    print("\n".join(stdlib))
    assert len(stdlib) <= MAX_FUNCTION_IMPORTS_OF_STDLIB, "\n".join(stdlib)
