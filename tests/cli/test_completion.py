"""``bottui completion`` and its callback ``bottui __complete``: what is offered, and what never.

The answers come from the real parser, a real ``config.toml`` and a real
SQLite inventory in ``tmp_path`` (see :mod:`tests.cli.completion_home`),
in process (:func:`answer`) and as the process the shells run.
"""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bottui.cli import COMMANDS
from bottui.cli.completion import script
from bottui.cli.tab_callback import Answer, answer, safe
from bottui.store.files import Locations
from tests.cli.completion_home import HOSTILE, RAW_HOSTILE, seed
from tests.cli.helpers import cli, cli_process


@pytest.fixture
def home() -> Locations:
    locations = Locations.default()
    seed(locations)
    return locations


def words(*typed: str) -> list[str]:
    """The candidates for the last of ``typed`` (as the shells send them)."""
    found = answer(list(typed), Locations.default())
    assert not found.files
    return sorted(found.words)


def test_commands_come_from_the_parser() -> None:
    offered = words("")
    # Every command the CLI runs, a new one too, without an edit of the completion.
    assert set(COMMANDS) <= set(offered)
    assert "completion" in offered and "__complete" not in offered
    assert words("li") == ["limiter"]
    assert words("limiter", "") == ["disable", "enable"]
    assert words("profile", "u") == ["use"]


def test_options_of_the_command_at_the_cursor() -> None:
    options = words("limiter", "enable", "--")
    assert {"--reason", "--profile", "--account", "--project", "--dry-run", "--help"} <= set(
        options
    )
    assert "--visitor-id" not in options
    assert "--visitor-id" in words("revoke", "--vis") + words("revoke", "--")
    assert words("--ver") == ["--version"]
    assert "-h" in words("journal", "-")
    # Nothing positional left to type: the options are what there is.
    assert "--since" in words("journal", "")


def test_the_timed_and_collision_flags_complete() -> None:
    assert words("limiter", "disable", "--rev") == ["--revert-to"]
    assert words("limiter", "disable", "rl-login", "--revert-to", "") == ["off", "on"]
    assert words("thresholds", "set", "--revert-to-") == [
        "--revert-to-block",
        "--revert-to-challenge",
    ]
    for typed in (["limiter", "enable"], ["thresholds", "set"], ["undo"]):
        assert words(*typed, "--ack") == ["--ack-collision"]
    assert words("revoke", "--ack") == []


def test_choices_and_files() -> None:
    assert words("token", "set", "") == ["personal", "project", "store"]
    assert words("completion", "") == ["bash", "fish", "zsh"]
    assert words("journal", "--format", "c") == ["csv"]
    loc = Locations.default()
    for typed in (
        ["inventory", "import", ""],
        ["revoke", "--from-file", "ids"],
        ["journal", "--export", ""],
    ):
        assert answer(typed, loc) == Answer([], files=True)


def test_profile_names_leave_the_hostile_one_out(home: Locations) -> None:
    assert words("--profile", "") == ["prod", "staging"]
    assert words("journal", "--profile", "s") == ["staging"]
    assert words("profile", "use", "") == ["prod", "staging"]
    assert words("profile", "remove", "p") == ["prod"]
    assert words("profile", "add", "") == []  # a new name: nothing to offer
    # --profile=NAME in one word (zsh, fish), and split at the '=' (bash).
    assert words("--profile=st") == ["--profile=staging"]
    assert words("--profile", "=", "st") == ["staging"]


def test_ids_of_the_current_profile_account_and_project(home: Locations) -> None:
    # prod is current, with account acme and project shop.
    assert words("limiter", "enable", "") == ["rl-api", "rl-login"]
    assert words("limiter", "disable", "rl-l") == ["rl-login"]
    assert words("thresholds", "set", "") == ["dim-score"]
    assert words("--account", "") == ["acme", "globex"]
    assert words("--project", "") == ["blog", "shop"]
    assert words("--account", "globex", "--project", "") == ["web"]


def test_ids_follow_what_is_already_on_the_line(home: Locations) -> None:
    assert words("--project", "blog", "limiter", "enable", "") == ["rl-blog"]
    assert words("limiter", "enable", "--project=blog", "") == ["rl-blog"]
    # A profile with no account/project of its own: its limiters of every project.
    assert words("--profile", "staging", "limiter", "enable", "") == ["rl-staging"]
    staging = ["--profile", "staging", "--account", "acme", "--project", "shop"]
    assert words(*staging, "limiter", "enable", "") == ["rl-staging"]
    assert words("--profile", "nosuch", "limiter", "enable", "") == []
    assert words("--account", "globex", "--project", "web", "limiter", "enable", "") == []


def test_hostile_ids_are_never_offered(home: Locations) -> None:
    offered = set(
        words("--account", "")
        + words("--project", "")
        + words("limiter", "enable", "")
        + words("thresholds", "set", "")
    )
    assert not offered & set(HOSTILE + RAW_HOSTILE)
    assert offered == {"acme", "globex", "blog", "shop", "rl-api", "rl-login", "dim-score"}
    # Even typed as a prefix, a hostile id stays out.
    assert words("limiter", "enable", "$(") == []


def test_safe_is_an_allow_list() -> None:
    for good in ("rl-1", "a.b_c", "me@x.org", "50%", "a+b,c", "path/part"):
        assert safe(good)
    for bad in (*HOSTILE, *RAW_HOSTILE, "", "~user", "a=b", "tab\there", "é", "x" * 201):
        assert not safe(bad), bad


def test_the_callback_writes_nothing(home: Locations) -> None:
    def state() -> dict[str, tuple[int, int]]:
        return {
            str(p): (p.stat().st_size, p.stat().st_mtime_ns)
            for d in (home.config_dir, home.data_dir, home.state_dir)
            if d.exists()
            for p in d.iterdir()
        }

    before = state()
    assert not home.journal_file.exists()
    result = cli_process("__complete", "bash", "--", "limiter", "enable", "")
    assert result.code == 0 and result.err == ""
    assert result.out.splitlines() == [":words", "rl-api", "rl-login"]
    # No -wal/-shm beside the inventory, no journal, nothing changed.
    assert state() == before


def test_a_held_open_inventory_is_read_with_its_newest_rows(home: Locations) -> None:
    # A running bottui keeps the WAL: rows not yet checkpointed must still be seen.
    writer = sqlite3.connect(home.inventory_file)
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        with writer:
            writer.execute(
                "INSERT INTO limiters (profile, account, project, limiter_id, known_at, source) "
                "VALUES ('prod', 'acme', 'shop', 'rl-fresh', '2026-01-01T00:00:00', 'user')"
            )
        assert Path(f"{home.inventory_file}-wal").stat().st_size > 0
        assert words("limiter", "enable", "rl-f") == ["rl-fresh"]
    finally:
        writer.close()


def test_no_files_no_answer_and_nothing_created(tmp_path: Path) -> None:
    loc = Locations.default()
    assert words("--profile", "") == []
    assert words("limiter", "enable", "") == []
    assert not loc.data_dir.exists() and not loc.config_dir.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["__complete"],
        ["__complete", "tcsh", "--", ""],
        ["__complete", "bash", "limiter"],
        ["__complete", "bash", "--", "nosuch", ""],
        ["__complete", "bash", "--", "--profile", "nosuch", "limiter", "enable", ""],
    ],
)
def test_the_callback_never_complains(argv: list[str]) -> None:
    result = cli_process(*argv)
    assert result.code == 0
    assert result.err == ""
    assert result.out in ("", ":words\n")


def test_a_broken_config_or_inventory_is_an_empty_answer(home: Locations) -> None:
    home.config_file.write_text("current = [\n")
    assert words("--profile", "") == []
    home.inventory_file.write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{home.inventory_file}{suffix}").unlink(missing_ok=True)
    result = cli_process("__complete", "zsh", "--", "limiter", "enable", "")
    assert (result.code, result.out, result.err) == (0, ":words\n", "")


def test_another_programs_database_is_not_read(tmp_path: Path) -> None:
    loc = Locations.default()
    loc.data_dir.mkdir(parents=True)
    conn = sqlite3.connect(loc.inventory_file)
    with conn:
        conn.execute("CREATE TABLE accounts (profile TEXT, account TEXT)")
        conn.execute("INSERT INTO accounts VALUES ('default', 'stranger')")
    conn.close()
    assert words("--account", "") == []


def test_the_copied_constants_agree() -> None:
    from bottui.cli import tab_callback
    from bottui.ops import session
    from bottui.store.config import config_model
    from bottui.store.inventory import inventory_peek, inventory_schema

    assert tab_callback.DEFAULT_PROFILE == session.DEFAULT_PROFILE
    assert tab_callback.MAX_CONFIG_BYTES == config_model.MAX_CONFIG_BYTES
    assert inventory_peek.APPLICATION_ID == inventory_schema.APPLICATION_ID


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_script(shell: str) -> None:
    result = cli("completion", shell)
    assert result.code == 0 and result.err == ""
    assert result.out == script(shell)
    assert f"bottui __complete {shell} --" in result.out


def test_completion_of_an_unknown_shell_is_refused() -> None:
    result = cli("completion", "tcsh")
    assert result.code == 2
    assert "invalid choice" in result.err and result.out == ""


def test_completion_help_says_how_to_install() -> None:
    result = cli_process("completion", "--help")
    assert result.code == 0
    for line in (
        'eval "$(bottui completion bash)"',
        'eval "$(bottui completion zsh)"',
        "bottui completion fish > ~/.config/fish/completions/bottui.fish",
        "exit codes:",
    ):
        assert line in result.out


def test_scripts_never_evaluate_the_answer() -> None:
    bash, zsh, fish = script("bash"), script("zsh"), script("fish")
    # The install lines of the comments say eval; the code never does.
    eval = re.compile(r"\beval\b")
    assert "compgen" not in bash and not eval.search(bash.split("\n", 2)[2])
    assert "IFS= read -r line" in bash and '[[ $line == "$cur"* ]]' in bash
    assert "compadd -- " in zsh and not eval.search(zsh.split("\n", 4)[4])
    assert "compadd -Q" not in zsh and "compadd -U" not in zsh
    assert not eval.search(fish)


def test_a_tab_imports_no_parser_and_no_command(home: Locations) -> None:
    # A Tab walks the command tree (data): argparse and the command modules cost every
    # Tab, and so would the config model (msgspec) and dataclasses (inspect).
    script = (
        "import sys\n"
        "from bottui.cli import run\n"
        "run(['__complete', 'bash', '--', 'limiter', 'enable', ''])\n"
        "heavy = ('argparse', 'msgspec', 'dataclasses', 'bottui.store.config.config_model')\n"
        "print(*sorted(m for m in sys.modules if m.startswith('bottui.cli') or m in heavy))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[:3] == [":words", "rl-api", "rl-login"]  # ids looked up
    assert done.stdout.splitlines()[-1].split() == ["bottui.cli", "bottui.cli.tab_callback"]


def test_the_tree_is_the_parser() -> None:
    # docs/generate.py writes it; test_docs fails while it differs: said here too.
    from bottui.cli.completion import tree_text
    from bottui.cli.parser import build_parser
    from bottui.cli.tab_callback import TREE_FILE

    assert TREE_FILE.read_text(encoding="utf-8") == tree_text(build_parser())
