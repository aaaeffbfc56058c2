"""The completion scripts in real bash, zsh and fish, over a real inventory with hostile ids.

Each shell sources the script ``bottui completion SHELL`` prints and asks it
for candidates, in a directory where any expanded hostile id would leave a
file (:data:`~tests.cli.completion_home.TRAPS`):

* bash: the function with ``COMP_WORDS``/``COMP_CWORD`` set, and Tab typed
  in an interactive bash in a pseudo-terminal;
* zsh: the function with ``words``/``CURRENT``/``PREFIX`` set and ``compadd``
  recording what it is given, and Tab typed in an interactive zsh after
  ``compinit``;
* fish: its own completion engine, ``complete -C``.

A second set answers through a ``bottui`` that lets hostile lines through
(a callback gone wrong): the scripts still take them as text and run nothing.
A shell missing from the machine fails its tests with the remedy (never a
skip: ``.ci/run`` installs both); the scripts' text is also checked in
``test_completion.py``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from bottui.cli.completion import script as completion_script
from bottui.store.files import Locations
from tests.cli.completion_home import bottui_on_path, lying_bottui, seed, sprung
from tests.pty_terminal import Terminal


def _needs(shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.fail(f"{shell} is not installed: apt-get install {shell} (.ci/run does as root)")


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """The shells' working directory: where a trap would spring."""
    seed(Locations.default())
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    return cwd


def _script(shell: str, tmp_path: Path) -> Path:
    path = tmp_path / f"bottui.{shell}"
    path.write_text(completion_script(shell))
    return path


BASH_ASK = (
    'source "$SCRIPT"; COMP_WORDS=(bottui "$@"); COMP_CWORD=$#; _bottui_complete; '
    'printf "%s\\n" "${COMPREPLY[@]}"'
)
ZSH_ASK = (
    "compdef() { :; }; _files() { print -r -- '<files>'; }; "
    'compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }; '
    'source "$SCRIPT"; words=(bottui "$@"); CURRENT=$#words; PREFIX=$words[CURRENT]; _bottui'
)
ASK = {
    "bash": ["bash", "--norc", "--noprofile", "-c", BASH_ASK, "bash"],
    "zsh": ["zsh", "-f", "-c", ZSH_ASK, "zsh"],
}


def ask(shell: str, env: dict[str, str], cwd: Path, script: Path, *typed: str) -> list[str]:
    """What the script's function offers for ``bottui TYPED...`` (the last word at the cursor)."""
    if shell == "fish":
        line = "bottui " + " ".join(typed)
        argv = ["fish", "--no-config", "-c", 'source "$SCRIPT"; complete -C "$LINE"']
        env = {**env, "LINE": line}
    else:
        argv = [*ASK[shell], *typed]
    done = subprocess.run(
        argv,
        env={**env, "SCRIPT": str(script)},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return sorted(line.split("\t")[0] for line in done.stdout.splitlines() if line)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_commands_options_profiles_and_ids(shell: str, place: Path, tmp_path: Path) -> None:
    _needs(shell)
    env = bottui_on_path(tmp_path / "bin")
    script = _script(shell, tmp_path)

    def offered(*typed: str) -> list[str]:
        return ask(shell, env, place, script, *typed)

    assert offered("li") == ["limiter"]
    assert {"completion", "journal", "limiter", "revoke"} <= set(offered(""))
    assert offered("limiter", "") == ["disable", "enable"]
    assert {"--reason", "--profile", "--account"} <= set(offered("limiter", "enable", "--"))
    assert offered("--profile", "") == ["prod", "staging"]
    assert offered("limiter", "enable", "") == ["rl-api", "rl-login"]
    assert offered("limiter", "enable", "rl-l") == ["rl-login"]
    assert offered("--project", "blog", "limiter", "disable", "") == ["rl-blog"]
    assert offered("thresholds", "set", "") == ["dim-score"]
    assert offered("--account", "") == ["acme", "globex"]
    assert offered("token", "set", "p") == ["personal", "project"]
    assert sprung(place) == []


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_files_are_left_to_the_shell(shell: str, place: Path, tmp_path: Path) -> None:
    _needs(shell)
    (place / "ids.txt").write_text("v1\n")
    offered = ask(
        shell,
        bottui_on_path(tmp_path / "bin"),
        place,
        _script(shell, tmp_path),
        "revoke",
        "--from-file",
        "id",
    )
    # bash: compopt -o default hands the word to readline's file names (not run here).
    assert offered == {"bash": [], "zsh": ["<files>"], "fish": ["ids.txt"]}[shell]


LIES = [":words", "$(touch x)", "`touch y`", "a;touch z", "ok-id"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_lying_callback_is_never_evaluated(shell: str, place: Path, tmp_path: Path) -> None:
    _needs(shell)
    env = lying_bottui(tmp_path / "bin", LIES)
    offered = ask(shell, env, place, _script(shell, tmp_path), "limiter", "enable", "")
    assert sprung(place) == []
    # Taken as text: each line one candidate, as it is.
    assert offered == sorted(LIES[1:])
    if shell != "zsh":  # zsh's own compadd matches the prefix; the recording one does not
        typed = ("limiter", "enable", "ok")
        assert ask(shell, env, place, _script(shell, tmp_path), *typed) == ["ok-id"]
    assert sprung(place) == []


def _interactive(argv: list[str], env: dict[str, str], place: Path) -> Terminal:
    env = {**env, "TERM": "xterm-256color", "PS1": "$ ", "PROMPT": "$ ", "COLUMNS": "100"}
    return Terminal(["sh", "-c", f'cd "{place}" && exec "$@"', "sh", *argv], env=env)


@pytest.mark.parametrize(
    ("shell", "argv", "setup"),
    [
        ("bash", ["bash", "--norc", "--noprofile", "-i"], 'source "$SCRIPT"'),
        ("zsh", ["zsh", "-f", "-i"], 'autoload -Uz compinit && compinit -u -D && source "$SCRIPT"'),
    ],
)
def test_tab_in_an_interactive_shell(
    shell: str, argv: list[str], setup: str, place: Path, tmp_path: Path
) -> None:
    _needs(shell)
    env = {**bottui_on_path(tmp_path / "bin"), "SCRIPT": str(_script(shell, tmp_path))}
    term = _interactive(argv, env, place)
    try:
        term.send(f"{setup} && echo READY\r")
        term.wait_for("READY")
        term.send("bottui limiter enable rl-l\t")
        term.wait_for("ogin", timeout=120)  # the line now reads ... rl-login
        term.send("\x15bottui --prof\t")
        term.wait_for("ile ", timeout=120)  # --profile and a space
        term.send("st\t")
        term.wait_for("aging", timeout=120)
        term.send("\x15echo DONE-$((6*7))\r")
        term.wait_for("DONE-42")
        text = term.text()
        assert "Traceback" not in text
        for hostile in ("touch x", "touch y", "touch z"):
            assert hostile not in text
        term.send("exit\r")
        term.wait_exit()
    finally:
        term.kill()
    assert sprung(place) == []
