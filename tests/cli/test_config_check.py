"""``bottui config check``: every key of config.toml and the keymap, with line numbers (#14)."""

from __future__ import annotations

from tests.cli.helpers import cli
from tests.cli.helpers import write_config as write

CLEAN = """\
current = "prod"
operator = "alice"

[profiles.prod]
base_url = "https://api.example.com"
protected = true

[[profiles.prod.projects]]
account = "acc-1"
project = "web"
threshold_min = 0.0

[keymap]
"limiters.toggle" = "t"
"app.journal" = "j"
"""


def test_a_clean_config_exits_0() -> None:
    write(CLEAN)
    result = cli("config", "check")
    assert result.code == 0, result
    assert result.out == "" and "no problems (2 keymap entries)" in result.err


def test_no_config_file_is_nothing_to_check() -> None:
    result = cli("config", "check")
    assert result.code == 0 and "nothing to check" in result.out


def test_a_misspelt_binding_id_is_named_with_its_line() -> None:
    path = write(CLEAN.replace('"limiters.toggle"', '"limiters.toogle"'))
    result = cli("config", "check")
    assert result.code == 2, result
    assert result.out == (
        f"{path}:14: unknown binding id 'limiters.toogle' (did you mean 'limiters.toggle'?)\n"
    )
    assert "1 problem found" in result.err


def test_a_key_bound_twice_is_named_with_its_line() -> None:
    write(CLEAN + '"limiters.enable" = "f"\n')  # f is Disable's on the same screen
    result = cli("config", "check", "--json")
    assert result.code == 2, result
    doc = result.json()
    assert doc["count"] == 1
    [problem] = doc["problems"]
    assert problem["line"] == 16
    assert "key 'f' is bound twice in Rate limiters" in problem["message"]
    assert "limiters.disable" in problem["message"]


def test_a_key_the_app_binds_elsewhere_is_no_problem() -> None:
    write(CLEAN.replace('"app.journal" = "j"', '"limiters.add" = "p"'))  # p: Projects only
    assert cli("config", "check").code == 0


def test_an_unknown_config_key_is_named_with_its_line() -> None:
    text = CLEAN.replace("protected = true", "protect = true").replace(
        "threshold_min", "threshold_mn"
    )
    path = write(text)
    result = cli("config", "check")
    assert result.code == 2, result
    assert result.out.splitlines() == [
        f"{path}:6: unknown key profiles.prod.protect (did you mean 'protected'?)",
        f"{path}:11: unknown key profiles.prod.projects[0].threshold_mn"
        " (did you mean 'threshold_min'?)",
    ]


def test_a_wrong_value_and_a_bad_key_name() -> None:
    path = write(CLEAN.replace('"app.journal" = "j"', '"app.journal" = "ctrl+shft+j"'))
    result = cli("config", "check")
    assert result.code == 2
    assert result.out.startswith(f"{path}:15: 'app.journal': 'ctrl+shft+j' is not a key")
    path = write(CLEAN.replace("protected = true", 'protected = "yes"'))
    result = cli("config", "check")
    assert result.code == 2
    assert result.out == f"{path}:6: profiles.prod.protected must be true or false\n"


def test_a_damaged_file_names_its_line() -> None:
    path = write(CLEAN.replace('base_url = "https', "base_url = https"))
    result = cli("config", "check")
    assert result.code == 2
    assert result.out.startswith(f"{path}:5: is not valid TOML"), result.out
