"""Each layer imports only the layers below it (direct imports, read from the source)."""

from __future__ import annotations

import ast
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
