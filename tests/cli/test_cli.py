"""The CLI contract of issue #2 against the loopback sandbox: output and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bottui.sandbox import demo_data
from bottui.sandbox.server import SandboxServer
from tests.cli.helpers import cli, cli_process
from tests.fixtures.sandbox import ACC, PROJ, scope


def test_limiter_enable_disable(env: SandboxServer) -> None:
    r = cli("limiter", "enable", "rl-search", *scope())
    assert r.code == 0, r.err
    assert "rl-search: ON" in r.out
    assert "srv_shop_prod" not in r.out  # serverKey masked
    r = cli("limiter", "disable", "rl-search", *scope(), "--json")
    assert r.code == 0
    doc = r.json()
    assert doc["id"] == PROJ and doc["serverKey"] == "***"
    limiter = next(x for x in doc["rateLimits"]["rateLimits"] if x["id"] == "rl-search")
    assert limiter["isActive"] is False
    r = cli("limiter", "disable", "rl-search", *scope(), "--json", "--show-secrets")
    assert r.json()["serverKey"].startswith("srv_")


def test_common_options_before_or_after(env: SandboxServer) -> None:
    r = cli("--account", ACC, "--project", PROJ, "limiter", "enable", "rl-api", "--json")
    assert r.code == 0 and r.json()["id"] == PROJ


def test_revoke_outputs(env: SandboxServer) -> None:
    r = cli("revoke", *scope(), "--visitor-id", "vis_7Hq2kP9xLm", "--json")
    assert r.code == 0
    doc = r.json()
    assert doc["revoked"] is True and doc["reportId"]
    assert set(doc) >= {"revoked", "reportId", "grantExpiresAt", "grantRemainingAttempts"}
    r = cli("revoke", *scope(), "--visitor-id", "vis_7Hq2kP9xLm")
    assert r.code == 0 and "nothing was standing" in r.out
    r = cli("revoke", *scope(), "--user-account-id", "user-1042")
    assert r.code == 0 and "withdrawn" in r.out


def test_thresholds_set(env: SandboxServer) -> None:
    r = cli(
        "thresholds",
        "set",
        "bot-score",
        *scope(),
        "--name",
        "Bot score",
        "--block",
        "0.123456789",
        "--challenge",
        "0.05",
        "--json",
    )
    assert r.code == 0, r.err
    assert r.json() == {
        "dimensionId": "bot-score",
        "name": "Bot score",
        "blockThreshold": 0.123456789,
        "challengeThreshold": 0.05,
    }
    assert b'"blockThreshold":0.123456789' in env.state.recorder.log[-1].body


@pytest.mark.parametrize(
    "argv",
    [
        ["revoke"],
        ["revoke", "--visitor-id", "x" * 257],
        ["revoke", "--visitor-id", ""],
        ["limiter", "enable", ".."],
        ["thresholds", "set", "d", "--name", "n", "--block", "nan", "--challenge", "0.1"],
        ["thresholds", "set", "d", "--name", "", "--block", "0.5", "--challenge", "0.1"],
        ["limiter", "toggle", "x"],
    ],
)
def test_refusals_exit_2_and_send_nothing(env: SandboxServer, argv: list[str]) -> None:
    r = cli(*argv, *scope())
    assert r.code == 2, (r.out, r.err)
    assert "Traceback" not in r.err
    assert env.stats.requests == 0


def test_json_error_document(env: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", "pat_unknown")
    r = cli("revoke", *scope(), "--visitor-id", "v", "--json")
    assert r.code == 1
    doc = r.json()
    assert doc["error"]["status"] == 401
    assert set(doc["error"]) == {"status", "message", "code", "type", "context"}
    assert "error:" in r.err


def test_no_token_exit_3(sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    r = cli("revoke", *scope(), "--visitor-id", "v")
    assert r.code == 3 and "No personal access token" in r.err
    r = cli("limiter", "enable", "rl-api", *scope())
    assert r.code == 3
    assert sandbox.stats.requests == 0


def test_plain_http_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", "x")
    r = cli("revoke", *scope(), "--visitor-id", "v", "--base-url", "http://api.example.com")
    assert r.code == 2 and "plain http" in r.err


def test_network_failure_exit_4(monkeypatch: pytest.MonkeyPatch) -> None:
    with SandboxServer() as server:
        url = server.base_url
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", demo_data.DEMO_ACCESS_TOKEN)
    r = cli("revoke", *scope(), "--visitor-id", "v", "--base-url", url)
    assert r.code == 4 and "Could not connect" in r.err


def test_token_set_status_delete(sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    r = cli("token", "set", "personal", "--account", ACC, stdin=demo_data.DEMO_ACCESS_TOKEN + "\n")
    assert r.code == 0 and demo_data.DEMO_ACCESS_TOKEN not in r.out + r.err
    r = cli("token", "set", "project", *scope(), stdin=demo_data.DEMO_PROJECT_TOKENS[PROJ])
    assert r.code == 0
    r = cli("token", "status", *scope(), "--json")
    states = {(t["kind"], t["project"]): t["state"] for t in r.json()["tokens"]}
    assert states == {("personal", None): "stored", ("project", PROJ): "stored"}
    assert demo_data.DEMO_ACCESS_TOKEN not in r.out
    # The stored tokens work.
    assert cli("revoke", *scope(), "--visitor-id", "vis_7Hq2kP9xLm").code == 0
    assert cli("limiter", "enable", "rl-api", *scope()).code == 0
    # The environment wins over the keyring.
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", "pat_from_env")
    r = cli("token", "status", *scope())
    assert "from the environment: not tied to an account" in r.out  # #27 item 7
    assert cli("revoke", *scope(), "--visitor-id", "v").code == 1  # env token unknown: 401
    monkeypatch.delenv("BOTTUI_ACCESS_TOKEN")
    assert cli("token", "delete", "personal", "--account", ACC).code == 0
    r = cli("token", "status", *scope(), "--json")
    states = {(t["kind"], t["project"]): t["state"] for t in r.json()["tokens"]}
    assert states[("personal", None)] == "missing"


def test_token_never_from_argv() -> None:
    r = cli("token", "set", "personal", "--account", ACC, "secret-value")
    assert r.code == 2


def test_profiles(sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> None:
    r = cli("profile", "add", "sb", "--base-url", sandbox.base_url, *scope())
    assert r.code == 0, r.err
    r = cli("profile", "add", "prod", "--base-url", "https://api.example.com", "--protected")
    assert r.code == 0
    r = cli("profile", "list", "--json")
    doc = r.json()
    assert doc["current"] == "sb"
    assert {p["name"] for p in doc["profiles"]} == {"sb", "prod"}
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", demo_data.DEMO_ACCESS_TOKEN)
    # The profile gives base URL, account and project.
    r = cli("revoke", "--visitor-id", "vis_7Hq2kP9xLm", "--json")
    assert r.code == 0 and r.json()["revoked"] is True
    assert cli("profile", "use", "prod").code == 0
    r = cli("revoke", "--visitor-id", "v", *scope())
    assert r.code == 2 and "protected" in r.err.lower()
    assert cli("profile", "remove", "prod").code == 0
    assert cli("profile", "add", "bad", "--base-url", "http://example.com").code == 2
    assert cli("profile", "use", "nope").code == 2


def test_read_only_refuses(env: SandboxServer) -> None:
    r = cli("limiter", "disable", "rl-login", *scope(), "--read-only")
    assert r.code == 2 and "read-only" in r.err.lower()
    assert env.stats.requests == 0


def test_dry_run_sends_nothing(env: SandboxServer) -> None:
    r = cli("limiter", "disable", "rl-login", *scope(), "--dry-run")
    assert r.code == 0
    assert "PATCH " in r.out and "curl" in r.out and "$BOTTUI_API_KEY" in r.out
    assert demo_data.DEMO_PROJECT_TOKENS[PROJ] not in r.out
    r = cli("revoke", *scope(), "--visitor-id", "v", "--dry-run", "--json")
    assert r.code == 0 and r.json()["requests"][0]["method"] == "POST"
    assert env.stats.requests == 0


def test_real_process_exit_codes_and_no_traceback(sandbox: SandboxServer) -> None:
    canary = "CANARY_cli_8e1f"
    env = {"BOTTUI_BASE_URL": sandbox.base_url, "BOTTUI_ACCESS_TOKEN": canary}
    r = cli_process("revoke", *scope(), "--visitor-id", "v", env=env)
    assert r.code == 1
    assert "Traceback" not in r.err and canary not in r.out + r.err
    r = cli_process("revoke", *scope(), env=env)
    assert r.code == 2
    r = cli_process("revoke", *scope(), "--visitor-id", "v", "--json", env=env)
    assert json.loads(r.out)["error"]["status"] == 401


def test_module_entry_point_version() -> None:
    r = cli_process("--version")
    assert r.code == 0 and "bottui" in r.out


@pytest.mark.parametrize("argv", [[], ["demo"]])
def test_the_tui_shortcuts_parse_as_the_parser_does(argv: list[str]) -> None:
    from bottui.cli import parse, with_defaults
    from bottui.cli.parser import build_parser

    assert vars(parse(argv)) == vars(with_defaults(build_parser().parse_args(argv)))


def test_anything_more_goes_through_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    from bottui.cli import parse

    parsed = parse(["demo", "--profile", "x"])
    assert (parsed.command, parsed.profile) == ("demo", "x")
    parsed = parse(["--read-only"])
    assert (parsed.command, parsed.read_only) == (None, True)
    with pytest.raises(SystemExit):
        parse(["demo", "-h"])
    assert "usage: bottui demo" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["limiter", "disable", "rl-1", "--account", "a", "--project", "p", "--for", "1h"],
        ["--acc", "a", "--proj=p", "limiter", "enable", "rl-1", "--json"],
        ["--profile", "journal", "thresholds", "set", "d", "--block", "0.9"],
        ["--json", "--dry-run", "revoke", "--visitor-id", "v", "--for", "2h"],
        ["journal", "--since", "2h", "--limit", "5", "--jsonl"],
        ["timed", "resolve", "3", "--done"],
        ["run-due", "--late-ok"],
        ["playbook", "revert", "#12", "--yes"],
        ["profile", "edit", "prod", "--no-protected", "--store", ""],
        ["token", "set", "project", "--base-url", "http://127.0.0.1:1"],
        ["store", "sync", "--backfill"],
        ["completion", "zsh"],
        ["help", "exit-codes"],
        ["--read-only", "undo", "--kind", "limiter"],
    ],
)
def test_the_command_named_parses_as_the_whole_parser(argv: list[str]) -> None:
    # parse() builds the parser of the one command named (no other).
    from bottui.cli import parse, with_defaults
    from bottui.cli.parser import build_parser, command_named

    assert command_named(argv) == {build_parser().parse_args(argv).command}
    assert vars(parse(argv)) == vars(with_defaults(build_parser().parse_args(argv)))


IMPORTED = """
import sys
from bottui.cli import parse
parse({argv!r})
print(" ".join(sorted(m for m in sys.modules if m.startswith("bottui.cli."))))
"""


@pytest.mark.parametrize(
    ("argv", "modules"),
    [
        (
            ["limiter", "disable", "rl-1"],
            {"argv_text", "changes", "command_session", "output", "parser"},
        ),
        (
            ["journal", "--limit", "5"],
            {"argv_text", "journal_cmd", "output", "parser", "store_cmd"},
        ),
        (["completion", "bash"], {"argv_text", "completion", "output", "parser", "tab_callback"}),
        (["--json"], {"argv_text", "output", "parser"}),
    ],
)
def test_a_command_imports_its_own_module_only(argv: list[str], modules: set[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", IMPORTED.format(argv=argv)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert {name.removeprefix("bottui.cli.") for name in done.stdout.split()} == modules


def test_the_tui_and_the_demo_start_without_argparse() -> None:
    # argparse and its translations cost ~2.5 ms of the first frame: no parser to build.
    script = (
        "import sys\n"
        "from bottui.cli import apps, run\n"
        "apps.cmd_tui = apps.cmd_demo = lambda args, out: 0\n"
        "assert run([]) == run(['demo']) == 0\n"
        "print('argparse' in sys.modules, 'bottui.cli.parser' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout.split()) == (0, ["False", "False"]), done.stderr


@pytest.mark.parametrize("argv", [[], ["demo"]])
def test_the_app_without_a_terminal_is_refused_at_once(argv: list[str]) -> None:
    # Without a terminal the app could neither draw nor read a key: its input thread read
    # the end of /dev/null again and again and spun a core until it was killed.
    done = subprocess.run(
        [sys.executable, "-m", "bottui", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard: the refusal comes before the app is built
    )
    assert done.returncode == 2, done.stderr
    assert "error: Not a terminal" in done.stderr and "needs a terminal" in done.stderr
