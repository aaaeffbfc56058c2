"""Write the generated parts of the docs from the code: ``python docs/generate.py``.

Each generated part of README.md sits between ``<!-- generated: NAME -->`` and
``<!-- end: NAME -->``; this script rewrites what is between them, and
``tests/test_docs.py`` fails while anything written differs from what the
code says (``--check`` does the same from the command line).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _binding_ids() -> str:
    from bottui.tui.key_reference import binding_table

    return binding_table()


#: Each generated part: its name, and what writes it.
PARTS: dict[str, Callable[[], str]] = {"binding-ids": _binding_ids}


def region(name: str) -> re.Pattern[str]:
    """The part named ``name``: its markers and what is between them."""
    return re.compile(
        rf"(<!-- generated: {re.escape(name)} -->\n)(.*?)(<!-- end: {re.escape(name)} -->)", re.S
    )


def rendered(text: str) -> str:
    """``text`` with every generated part written anew."""
    for name, make in PARTS.items():
        pattern = region(name)
        if not pattern.search(text):
            raise SystemExit(f"README.md has no generated part {name!r}")
        body = make().rstrip("\n") + "\n"
        text = pattern.sub(lambda m, body=body: m.group(1) + body + m.group(3), text)
    return text


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    new = rendered(text)
    if "--check" in argv:
        if new != text:
            print("README.md is out of date: run python docs/generate.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        README.write_text(new, encoding="utf-8")
        print("README.md: generated parts written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
