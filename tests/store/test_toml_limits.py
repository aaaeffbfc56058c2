"""Hostile TOML files (inventory import and ``config.toml``): refused clearly, quickly, cheaply.

Each attack is a real file in ``tmp_path`` (a symlink to ``/dev/zero``, a
FIFO, 100,000 levels of nesting, a 100,000-part dotted key, more than the
cap on stdin) given to a real ``python -m bottui`` process. The process runs
under ``RLIMIT_AS`` and a generous timeout, so a regression fails the test
instead of eating the machine's memory or hanging the suite.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bottui.store import toml_read
from bottui.store.config.config_file import ConfigStore
from bottui.store.files import Locations
from bottui.store.inventory import inventory_toml
from bottui.store.store_errors import ConfigError

#: Address space of a child: far above what bottui needs, far below a runaway read.
ADDRESS_SPACE = 2 * 1024**3
#: A hang fails the test after this long (no timing is asserted otherwise).
HANG_SECONDS = 60
BASE = ["--base-url", "http://127.0.0.1:9"]
# Runs main, then reports the process's peak RSS (KiB) on stderr's last line.
_MAIN_WITH_PEAK = (
    "import resource, sys\n"
    "from bottui.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def bottui(
    *argv: str, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``bottui argv`` in a child with bounded memory and a hang timeout."""
    return subprocess.run(
        [sys.executable, "-m", "bottui", *argv],
        input=stdin.decode("latin-1") if stdin is not None else None,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
        preexec_fn=_limit_memory,
        cwd=cwd,
    )


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    """Assert a clear refusal (exit 2, no traceback, ``words`` said); the error text."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith("error: "), proc.stderr
    for word in words:
        assert word in first, first
    return first


def deep(levels: int = 100_000) -> str:
    return "a = " + "[" * levels + "]" * levels + "\n"


def dotted(parts: int = 100_000) -> str:
    return ".".join(["k"] * parts) + " = 1\n"


def inventory_header() -> str:
    return 'format = "bottui-inventory"\nversion = 1\n'


@pytest.fixture
def config_file(isolated_home: Path) -> Path:
    path = isolated_home / "config" / "bottui" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


# -- inventory import ----------------------------------------------------------------


def test_symlink_to_dev_zero_is_refused_unread(tmp_path: Path) -> None:
    link = tmp_path / "inventory.toml"
    link.symlink_to("/dev/zero")
    refused(bottui("inventory", "import", str(link), *BASE), "not a regular file")


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "inventory.toml"
    os.mkfifo(fifo)
    refused(bottui("inventory", "import", str(fifo), *BASE), "not a regular file", "FIFO")


def test_deep_nesting_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(inventory_header() + deep())
    refused(bottui("inventory", "import", str(path), *BASE), "line 3", "deeper than 64")


def test_long_dotted_key_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "dotted.toml"
    path.write_text(inventory_header() + dotted())
    assert path.stat().st_size < 250_000
    refused(bottui("inventory", "import", str(path), *BASE), "line 3", "more than 64 parts")


@pytest.mark.parametrize("name", ["/dev/stdin", "-"])
def test_more_than_the_cap_on_stdin_is_refused(name: str) -> None:
    too_much = b"#" * (inventory_toml.MAX_FILE_BYTES + 1024 * 1024)
    proc = subprocess.run(
        [sys.executable, "-c", _MAIN_WITH_PEAK, "inventory", "import", name, *BASE],
        input=too_much,
        capture_output=True,
        timeout=HANG_SECONDS,
        preexec_fn=_limit_memory,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2, err[-2000:]
    assert "larger than 33554432 bytes" in err and "Traceback" not in err
    peak = int(err.splitlines()[-1]) * 1024
    # At most cap + 1 bytes are held (with a copy or two while they are joined and
    # decoded), plus the interpreter: the promise is under 10x the cap, nowhere
    # near the 842 MB seen for 50 MB. (5x measured 173 MB once on a loaded machine.)
    assert peak < 10 * inventory_toml.MAX_FILE_BYTES, peak


def test_a_pipe_on_stdin_is_still_imported(tmp_path: Path) -> None:
    text = inventory_header() + '\n[[accounts]]\naccount = "acc-pipe"\n'
    proc = bottui("inventory", "import", "/dev/stdin", *BASE, stdin=text.encode())
    assert proc.returncode == 0, proc.stderr
    assert "1 added" in proc.stdout


def _inventory_text(records: int) -> str:
    chunks = [inventory_header()]
    for i in range(records):
        chunks.append(
            f'\n[[limiters]]\naccount = "acc-1"\nproject = "proj-{i % 50}"\nid = "rl-{i}"\n'
            f'name = "Limiter number {i}"\nis_active = true\n'
            'known_at = "2025-06-01T12:00:00.000000Z"\nsource = "response"\n'
        )
    return "".join(chunks)


def _short_lines_text(lines: int) -> str:
    # Blank lines and comments: a parser ignores them, a list of lines does not.
    return inventory_header() + "#.\n" * lines + '\n[[accounts]]\naccount = "acc-1"\n'


@pytest.mark.parametrize(
    "text",
    [lambda: _inventory_text(25_000), lambda: _short_lines_text(2_000_000)],
    ids=["records", "short-lines"],
)
def test_import_memory_stays_under_ten_times_the_file(
    tmp_path: Path, text: Callable[[], str]
) -> None:
    path = tmp_path / "big.toml"
    path.write_text(text())
    size = path.stat().st_size
    assert size > 4_000_000
    # One child: list first (every module imported, databases open), then import.
    script = (
        "import resource, sys\n"
        "from bottui.cli import main\n"
        "base = ['--base-url', 'http://127.0.0.1:9']\n"
        "assert main(['inventory', 'list', *base]) == 0\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "code = main(['inventory', 'import', sys.argv[1], '--json', *base])\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(before, after, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS * 3,
        preexec_fn=_limit_memory,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    before, after = (int(n) * 1024 for n in proc.stderr.split()[-2:])
    assert after - before < 10 * size, f"{(after - before) / size:.1f}x the file"


# -- config.toml ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv", [[], ["profile", "list"], ["token", "status", "--account", "a"]], ids=str
)
def test_a_deeply_nested_config_is_one_clear_message(config_file: Path, argv: list[str]) -> None:
    config_file.write_text('current = "p"\n' + deep())
    first = refused(bottui(*argv), str(config_file), "line 2", "deeper than 64")
    assert "RecursionError" not in first


def test_a_config_with_a_long_dotted_key_is_refused(config_file: Path) -> None:
    config_file.write_text(dotted())
    refused(bottui("profile", "list"), str(config_file), "line 1", "more than 64 parts")


@pytest.mark.parametrize("target", ["fifo", "/dev/zero"])
def test_a_config_that_is_no_regular_file_is_refused(
    config_file: Path, tmp_path: Path, target: str
) -> None:
    if target == "fifo":
        os.mkfifo(tmp_path / "fifo")
        target = str(tmp_path / "fifo")
    config_file.symlink_to(target)
    refused(bottui("profile", "list"), str(config_file), "not a regular file")


def test_a_config_syntax_error_names_file_line_and_column(config_file: Path) -> None:
    config_file.write_text('current = "p"\n[profiles\n')
    refused(bottui(), str(config_file), "line 2, column 10", "not valid TOML")


def test_an_oversize_config_is_refused(config_file: Path) -> None:
    from bottui.store.config.config_model import MAX_CONFIG_BYTES

    config_file.write_text("# padding\n" * (MAX_CONFIG_BYTES // 10 + 1))
    with pytest.raises(ConfigError, match="larger than"):
        ConfigStore(Locations.default()).load()


# -- the scan agrees with tomllib on real files ---------------------------------------

TRICKY = '''
# a comment with [[[ brackets ]]] and "quotes" and 'more' and a.b.c.d
title = "x [ { y"   # trailing ]]
lit = 'C:\\path\\[not an array'
multi = """
  [[[[[[ not nesting
  "" quotes "\\"" and \\
  ]]]
"""
multi_lit = \'\'\'
{{{{ nor this \'' '
\'\'\'
ends_with_quotes = """a""""
pi = 3.14159
when = 1979-05-27T07:32:00.999999Z
"quoted.key".plain."x y" = 1
a.b.c = [1.5, 2.5, [3.5, {d.e = 1, f = "]"}]]

[[tables."with.dots"]]
v = { w = [ [ ], [ [ ] ] ] }
'''


def test_tricky_but_valid_toml_passes_the_scan() -> None:
    toml_read.check_shape(TRICKY)
    assert toml_read.parse(TRICKY)["ends_with_quotes"] == 'a"'


def test_limits_are_exact() -> None:
    toml_read.check_shape("a = " + "[" * 64 + "]" * 64)
    toml_read.check_shape(".".join(["k"] * 64) + " = 1")
    with pytest.raises(toml_read.TomlProblem):
        toml_read.check_shape("a = " + "[" * 65 + "]" * 65)
    with pytest.raises(toml_read.TomlProblem):
        toml_read.check_shape(".".join(["k"] * 65) + " = 1")
    with pytest.raises(toml_read.TomlProblem, match="more than 64 parts") as raised:
        toml_read.check_shape("x = 1\n\n[" + '."q.q".'.join(["k"] * 40) + "]\n")
    assert raised.value.line == 3


def test_a_recursion_the_scan_missed_is_still_no_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The scan is bypassed on purpose: the parser's own recursion is caught too.
    monkeypatch.setattr(toml_read, "check_shape", lambda text: None)
    with pytest.raises(toml_read.TomlProblem, match="deeper than"):
        toml_read.parse(deep())


_text = st.text(
    st.characters(exclude_categories=["Cs"]), max_size=12
)  # any text: quotes, brackets, dots, '#', backslashes, newlines
_values = st.recursive(
    _text | st.integers() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_text, _values, max_size=4))
def test_the_scan_accepts_what_a_toml_writer_writes(data: dict[str, object]) -> None:
    import tomlkit

    try:
        text = tomlkit.dumps(data)
    except Exception:  # a value tomlkit cannot write is no test of the scan
        return
    toml_read.check_shape(text)
    assert toml_read.parse(text) == tomllib.loads(text)
