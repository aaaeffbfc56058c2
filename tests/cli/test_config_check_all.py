"""``bottui config check`` finds every problem, and every start says there are some (#16 item 5)."""

from __future__ import annotations

import pytest
from msgspec.structs import fields

from bottui.ops import config_checks
from bottui.ops.config_checks import CheckedFiles, FileProblem
from bottui.store.config.config_model import Config, Profile, ProjectSettings
from bottui.store.files import Locations
from tests.cli.helpers import cli
from tests.cli.helpers import write_config as write

WRONG = """\
current = "nosuch"
theme = 5

[profiles.prod]
base_url = "https://api.example.com"
read_only = "yes"
protect = true

[[profiles.prod.projects]]
account = "acc-1"
project = "web"
threshold_min = "low"
threshold_max = 2

[profiles.dev]
base_url = "https://dev.example.com?x=1"

[profiles.odd]
read_only = false
"""


def test_every_wrong_value_is_reported_at_once_with_its_line() -> None:
    path = write(WRONG)
    done = cli("config", "check")
    assert done.code == 2, done
    assert done.out.splitlines() == [
        f"{path}:2: theme must be a string",
        f"{path}:6: profiles.prod.read_only must be true or false",
        f"{path}:7: unknown key profiles.prod.protect (did you mean 'protected'?)",
        f"{path}:12: profiles.prod.projects[0].threshold_min must be a number",
        f"{path}:15: profiles.dev: A base URL cannot have a query or a fragment",
        f"{path}:18: profiles.odd.base_url is missing",
    ]
    assert "6 problems found" in done.err


def test_every_wrong_type_of_one_table_is_said_and_its_values_are_not_judged() -> None:
    # Two wrong types in one profile: both said; its base URL (refused) is not judged too.
    path = write('[profiles.p]\nbase_url = "ftp://a"\nread_only = "yes"\naccount = 5\n')
    done = cli("config", "check")
    assert done.code == 2
    assert done.out.splitlines() == [
        f"{path}:3: profiles.p.read_only must be true or false",
        f"{path}:4: profiles.p.account must be a string",
    ]


def test_a_dangling_current_is_said_once_the_rest_is_right() -> None:
    path = write('current = "prdo"\n\n[profiles.prod]\nbase_url = "https://a.example"\n')
    done = cli("config", "check")
    assert done.code == 2
    assert done.out == f"{path}:1: current = 'prdo' names no profile: it is ignored\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('profiles = "x"\n', "1: profiles must be a table"),
        ('keymap = "x"\n', "1: keymap must be a table"),
        ("[profiles]\nprod = 3\n", "2: profiles.prod must be a table"),
        (
            '[profiles.p]\nbase_url = "https://a.example"\nprojects = 3\n',
            "3: profiles.p.projects must be an array of tables ([[...]])",
        ),
        (
            '[[profiles.p.projects]]\naccount = "a"\n\n[profiles.p]\nbase_url = "https://a.example"\n',
            "1: profiles.p.projects[0].project is missing",
        ),
    ],
)
def test_tables_of_the_wrong_kind(text: str, expected: str) -> None:
    path = write(text)
    done = cli("config", "check")
    assert done.code == 2
    assert done.out == f"{path}:{expected}\n"


@pytest.mark.parametrize(
    ("model", "header", "skip"),
    [
        (Config, "", set()),
        (Profile, '[profiles.p]\nbase_url = "https://a.example"\n', {"name"}),
        (
            ProjectSettings,
            '[profiles.p]\nbase_url = "https://a.example"\n'
            '[[profiles.p.projects]]\naccount = "a"\nproject = "w"\n',
            set(),
        ),
    ],
)
def test_every_field_of_the_model_is_a_key_config_check_knows(
    model: type, header: str, skip: set[str]
) -> None:
    # A value of the wrong type under each of the model's fields: said as such, never unknown.
    where = {Config: "", Profile: "profiles.p.", ProjectSettings: "profiles.p.projects[0]."}[model]
    for field in fields(model):
        if field.name in skip:
            continue
        value = "[]" if field.name in ("profiles", "keymap") else "{}"
        lines = [line for line in header.splitlines() if not line.startswith(f"{field.name} =")]
        write("".join(f"{line}\n" for line in lines) + f"{field.name} = {value}\n")
        done = cli("config", "check")
        assert done.code == 2, (field.name, done)
        assert f"{where}{field.name} must be " in done.out, (field.name, done.out)
        assert "unknown key" not in done.out, (field.name, done.out)


# -- said at the start of every command -------------------------------------------


def test_a_command_warns_in_one_line_and_keeps_its_exit_code() -> None:
    path = write('[profiles.prod]\nbase_url = "https://a.example"\nprotect = true\n')
    done = cli("journal")
    assert done.code == 0
    assert done.out == "the journal is empty\n"
    assert done.err.splitlines() == [
        f"warning: 1 problem in your config files: {path}:3: unknown key"
        " profiles.prod.protect (did you mean 'protected'?); bottui config check lists them"
    ]
    as_json = cli("journal", "--json")
    assert as_json.json()["count"] == 0 and "1 problem" in as_json.err


def test_several_problems_name_the_first_and_count_the_rest() -> None:
    write('current = "prdo"\nthme = "x"\n[profiles.prod]\nbase_url = "https://a.example"\n')
    done = cli("profile", "list")
    assert done.code == 0
    assert "warning: 2 problems in your config files:" in done.err
    assert "current = 'prdo' names no profile: it is ignored (and 1 more)" in done.err


def test_a_config_that_stops_the_command_is_said_once() -> None:
    write(WRONG)  # theme = 5: loading fails, the command says so itself
    done = cli("profile", "list")
    assert done.code == 2
    assert "warning:" not in done.err and "must be a number" in done.err


def test_a_clean_config_prints_no_warning() -> None:
    write('[profiles.prod]\nbase_url = "https://a.example"\n')
    done = cli("profile", "list")
    assert done.code == 0 and done.err == ""


def test_config_check_itself_does_not_warn_twice() -> None:
    write("protect = 1\n")
    done = cli("config", "check")
    assert "warning:" not in done.err


# -- more checkers (playbooks) ------------------------------------------------------


def test_every_registered_checker_is_run(monkeypatch: pytest.MonkeyPatch) -> None:
    def playbooks(files: CheckedFiles) -> list[FileProblem]:
        return [FileProblem(files.locations.config_dir / "playbooks" / "x.toml", 3, "bad step")]

    def broken(files: CheckedFiles) -> list[FileProblem]:
        raise ValueError("cannot read")

    monkeypatch.setattr(config_checks, "CHECKERS", [*config_checks.CHECKERS, playbooks, broken])
    config_dir = Locations.default().config_dir
    done = cli("config", "check", "--json")  # no config.toml: the others still run
    assert done.code == 2
    doc = done.json()
    assert doc["exists"] is False and doc["count"] == 2
    assert doc["problems"][0] == {
        "file": str(config_dir / "playbooks" / "x.toml"),
        "line": 3,
        "message": "bad step",
    }
    assert doc["problems"][1]["message"] == "broken failed: cannot read"
    warned = cli("journal")
    assert "warning: 2 problems in your config files:" in warned.err
    assert "x.toml:3: bad step" in warned.err


def test_config_check_covers_the_playbook_files() -> None:
    from tests.ops.test_playbook_files import GOOD

    config = write("")
    playbooks = config.parent / "playbooks"
    playbooks.mkdir()
    (playbooks / "ok.toml").write_text(GOOD, encoding="utf-8")
    bad = playbooks / "scrape.toml"
    bad.write_text("owner = 'me'\n" + GOOD, encoding="utf-8")
    done = cli("config", "check")
    assert done.code == 2, done
    assert f"{bad}:1" in done.out + done.err and "unknown key 'owner'" in done.out + done.err
    assert "ok.toml" not in done.out + done.err


def test_a_broken_playbook_is_said_at_the_start_of_the_commands_that_read_playbooks() -> None:
    # A limiter change or the journal does not read the playbooks, so its start neither
    # reads nor checks them (nor imports their reader); `playbook` and `config check` do.
    from tests.ops.test_playbook_files import GOOD

    config = write("")
    playbooks = config.parent / "playbooks"
    playbooks.mkdir()
    (playbooks / "scrape.toml").write_text("owner = 'me'\n" + GOOD, encoding="utf-8")
    assert "warning:" in cli("playbook", "list").err
    quiet = cli("journal")
    assert quiet.code == 0 and "warning:" not in quiet.err, quiet
