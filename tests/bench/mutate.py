"""Single-line mutations of bottui's core modules, drawn at random with a recorded seed.

Run from the repository root (pytest does not collect tests/bench)::

    python -m tests.bench.mutate --count 40 [--seed N] [--module api/requests.py ...]
    python -m tests.bench.mutate --apply 'api/requests.py:69:Cs=>Cx'   # one, by hand

Each mutation changes one line of one module (an operator, a comparison, a
boolean, a constant, a negation), in a copy of the working tree (the checkout
itself is never touched). The module's tests run against that copy
(``pytest -x -q``, cwd and ``PYTHONPATH`` the copy); the mutation is *killed*
when they fail and *survives* when they pass. Printed: the seed (a run is
repeated with ``--seed``), each mutation with its verdict and, for every
survivor, its diff; at the end killed/survived and the score. Mutations that
no longer compile are not drawn. ``--list`` shows the candidates without
running anything.

Pick a small ``--count`` on a shared machine: each mutation runs its tests.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The core modules and the tests that speak for each (run per mutation).
MODULES: dict[str, list[str]] = {
    "api/requests.py": [
        "tests/api/test_validation.py",
        "tests/api/test_client.py",
        "tests/cli/test_thresholds_rules.py",
        "tests/ops/test_plan.py",
    ],
    "api/client.py": [
        "tests/api/test_client.py",
        "tests/api/test_single_and_bulk.py",
        "tests/api/test_hostile_text.py",
        "tests/api/test_tls_dns_failures.py",
        "tests/api/test_pinning.py",
        "tests/bulk/test_transport.py",
        "tests/ops/test_plan.py",
        "tests/ops/test_undo.py",
        "tests/ops/test_read_only.py",
        "tests/cli/test_thresholds_rules.py",
        "tests/bulk/test_unknown_outcomes.py",
    ],
    "ops/planning.py": [
        "tests/ops/test_plan.py",
        "tests/ops/test_mutation_rules.py",
        "tests/ops/test_undo.py",
        "tests/cli/test_planned_once.py",
        "tests/timed/test_timed_ops.py",
        "tests/timed/test_in_doubt_rules.py",
        "tests/timed/test_revert_to.py",
        "tests/timed/test_timed_team.py",
        "tests/timed/test_timed_cli.py",
        "tests/tui/test_planned_once.py",
        "tests/tui/test_result_panels.py",
    ],
    "ops/mutations.py": [
        "tests/ops/test_mutation_rules.py",
        "tests/ops/test_plan.py",
        "tests/ops/test_undo.py",
        "tests/ops/test_read_only.py",
        "tests/cli/test_planned_once.py",
        "tests/timed/test_in_doubt_rules.py",
        "tests/timed/test_timed_ops.py",
        "tests/timed/test_revert_to.py",
        "tests/timed/test_timed_team.py",
        "tests/timed/test_timed_hostile.py",
        "tests/team/test_shared_inventory.py",
        "tests/tui/test_planned_once.py",
    ],
    "ops/bulk/engine.py": [
        "tests/bulk/test_engine.py",
        "tests/bulk/test_invalid_kept.py",
        "tests/bulk/test_resume_checkpoint.py",
        "tests/bulk/test_resume_lost.py",
        "tests/bulk/test_resume_overlap.py",
        "tests/bulk/test_unknown_outcomes.py",
        "tests/bulk/test_cli.py",
        "tests/bulk/test_concurrency_scale.py",
        "tests/bulk/test_spool.py",
    ],
    "store/journal/journal_store.py": [
        "tests/store/test_journal_store.py",
        "tests/store/test_journal_store_locked.py",
        "tests/store/test_journal_checkpoints.py",
        "tests/store/test_item_states.py",
        "tests/store/test_journal_migration.py",
        "tests/store/test_journal_size.py",
        "tests/ops/test_journal_pages.py",
        "tests/cli/test_journal_pages.py",
        "tests/ops/test_plan.py",
        "tests/ops/test_undo.py",
    ],
    "ops/timed/execute.py": [
        "tests/timed/test_in_doubt_rules.py",
        "tests/timed/test_timed_ops.py",
        "tests/timed/test_timed_hostile.py",
        "tests/timed/test_timed_team.py",
        "tests/timed/test_timed_cli.py",
        "tests/timed/test_revert_to.py",
        "tests/tui/test_timed.py",
    ],
}

#: (pattern, replacement): each match on a line is one candidate mutation.
OPERATORS: list[tuple[str, str]] = [
    (r"==", "!="),
    (r"!=", "=="),
    (r"(?<![<>=!])<(?![<=])", "<="),
    (r"<=", "<"),
    (r"(?<![<>=!-])>(?![>=])", ">="),
    (r">=", ">"),
    (r"\band\b", "or"),
    (r"\bor\b", "and"),
    (r"\bnot ", ""),
    (r"\bis not\b", "is"),
    (r"\bis\b(?! not)", "is not"),
    (r"\bTrue\b", "False"),
    (r"\bFalse\b", "True"),
    (r"(?<![\w.])(\d+)(?![\w.])", "INC"),  # an integer literal, plus one
    (r" \+ ", " - "),
    (r" - ", " + "),
    (r"\bbreak\b", "continue"),
    (r"\bin\b(?= )", "not in"),
]


@dataclass(frozen=True)
class Mutation:
    module: str
    line: int  # 1-based
    before: str
    after: str

    @property
    def name(self) -> str:
        return f"{self.module}:{self.line}"

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                [self.before + "\n"],
                [self.after + "\n"],
                f"a/bottui/{self.module}",
                f"b/bottui/{self.module}",
                n=0,
            )
        ).replace("@@ -1 +1 @@", f"@@ -{self.line} +{self.line} @@")


def code_lines(source: str) -> set[int]:
    """Lines of statements inside functions, docstrings left out."""
    tree = ast.parse(source)
    lines: set[int] = set()
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.update(range(body[0].lineno, (body[0].end_lineno or 0) + 1))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.stmt) and inner is not node:
                    lines.add(inner.lineno)
    return lines - docstrings


def candidates(module: str) -> list[Mutation]:
    path = ROOT / "bottui" / module
    source = path.read_text(encoding="utf-8")
    text = source.splitlines()
    found: list[Mutation] = []
    for number in sorted(code_lines(source)):
        line = text[number - 1]
        code = line.split("#", 1)[0]
        if code.strip().startswith(("def ", "async def ", "class ", "@", "import ", "from ")):
            continue
        if '"' in code or "'" in code:
            # Operators inside string literals are not code: mutate outside quotes only.
            spans = [m.span() for m in re.finditer(r"(['\"]).*?(?<!\\)\1", code)]
        else:
            spans = []
        for pattern, replacement in OPERATORS:
            for match in re.finditer(pattern, code):
                if any(a <= match.start() < b for a, b in spans):
                    continue
                new = str(int(match.group(1)) + 1) if replacement == "INC" else replacement
                after = line[: match.start()] + new + line[match.end() :]
                mutated = "\n".join([*text[: number - 1], after, *text[number:]])
                try:
                    ast.parse(mutated)
                except SyntaxError:
                    continue
                found.append(Mutation(module, number, line, after))
    return found


def copy_tree(dest: Path) -> None:
    for part in ("bottui", "tests"):
        shutil.copytree(
            ROOT / part,
            dest / part,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "__snapshots__"),
        )
    snapshots = ROOT / "tests" / "tui" / "__snapshots__"
    if snapshots.exists():
        shutil.copytree(snapshots, dest / "tests" / "tui" / "__snapshots__")
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


def run(mutation: Mutation, tests: list[str], timeout: float) -> tuple[str, float]:
    """``killed``, ``survived`` or ``timeout`` (counted as killed), and the seconds taken."""
    with tempfile.TemporaryDirectory(prefix="bottui-mutant-") as tmp:
        work = Path(tmp)
        copy_tree(work)
        target = work / "bottui" / mutation.module
        lines = target.read_text(encoding="utf-8").split("\n")
        assert lines[mutation.line - 1] == mutation.before, "the module changed under us"
        lines[mutation.line - 1] = mutation.after
        target.write_text("\n".join(lines), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
        began = time.monotonic()
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-x",
                    "-q",
                    "-n",
                    "0",
                    "-p",
                    "no:cacheprovider",
                    *tests,
                ],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - began
        took = time.monotonic() - began
        if done.returncode == 0:
            return "survived", took
        if done.returncode in (1, 3):  # failures, or an import error in a test module
            return "killed", took
        return f"error {done.returncode}: {done.stdout[-300:]}", took


def parse_apply(text: str) -> Mutation:
    """``module:line:OLD=>NEW``: replace the first OLD on that line by NEW."""
    module, line, change = text.split(":", 2)
    old, new = change.split("=>", 1)
    number = int(line)
    before = (ROOT / "bottui" / module).read_text(encoding="utf-8").split("\n")[number - 1]
    if old not in before:
        raise SystemExit(f"{old!r} is not on {module}:{number}: {before!r}")
    return Mutation(module, number, before, before.replace(old, new, 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--module", action="append", choices=sorted(MODULES))
    parser.add_argument("--apply", action="append", default=[], metavar="MODULE:LINE:OLD=>NEW")
    parser.add_argument("--tests", nargs="*", help="run these tests instead of the module's")
    parser.add_argument("--timeout", type=float, default=300.0)  # a hang counts as killed
    parser.add_argument("--list", action="store_true")
    options = parser.parse_args()

    if options.apply:
        chosen = [parse_apply(text) for text in options.apply]
        print("mutations given by hand (no seed)")
    else:
        seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**32)
        print(f"seed {seed}")
        pool = [m for module in options.module or sorted(MODULES) for m in candidates(module)]
        print(f"{len(pool)} candidate mutations in {len(options.module or MODULES)} modules")
        if options.list:
            for m in pool:
                print(f"{m.name}: {m.before.strip()}  =>  {m.after.strip()}")
            return 0
        chosen = random.Random(seed).sample(pool, min(options.count, len(pool)))

    killed = 0
    survivors: list[Mutation] = []
    for index, mutation in enumerate(chosen, 1):
        tests = options.tests or [t for t in MODULES[mutation.module] if (ROOT / t).exists()]
        verdict, took = run(mutation, tests, options.timeout)
        print(
            f"[{index}/{len(chosen)}] {mutation.name} {verdict} ({took:.0f} s): "
            f"{mutation.before.strip()}  =>  {mutation.after.strip()}",
            flush=True,
        )
        if verdict in ("killed", "timeout"):
            killed += 1
        else:
            survivors.append(mutation)
    print(f"\nkilled {killed} of {len(chosen)}, survived {len(survivors)}", end="")
    print(f" (score {100 * killed / len(chosen):.0f}%)" if chosen else "")
    for mutation in survivors:
        print()
        print(mutation.diff(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
