"""The CLI against the sandbox's hostile modes: what it prints, journals, learns and exports.

Streams are strict UTF-8 (as a real stdout): a lone surrogate that reaches
one raises, as it did before #10.6. Files are read back as they lie on disk:
the SQLite journal and inventory cell by cell.
"""

from __future__ import annotations

import io
import json
import secrets
import sqlite3
from base64 import b64encode
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

from bottui.cli import run
from bottui.cli.output import Output
from bottui.sandbox.demo_data import DEMO_ACCOUNT
from bottui.sandbox.server import SandboxServer
from bottui.store.files import Locations
from bottui.store.journal.journal_file import Journal
from bottui.store.journal.journal_records import Operation
from bottui.store.keyring_tokens import personal_username
from tests.fixtures.hostile import (
    ECHO_ACCESS_TOKEN,
    ECHO_PROJECT_TOKEN,
    add_echo_tokens,
    every_form,
)
from tests.fixtures.keyrings import InMemoryKeyring
from tests.fixtures.sandbox import PROJ, scope

FORMS = every_form(ECHO_ACCESS_TOKEN, ECHO_PROJECT_TOKEN)
C1_AND_BIDI = [chr(c) for c in range(0x80, 0xA0)] + [
    *"\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
]


@dataclass
class Run:
    """One in-process run with strict UTF-8 streams, as a terminal or a pipe has."""

    code: int
    out: bytes
    err: bytes

    @property
    def text(self) -> str:
        return (self.out + self.err).decode("utf-8")


def cli(*argv: str) -> Run:
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict", newline="")
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="strict", newline="")
    code = run(list(argv), Output("--json" in argv, out, err))
    out.flush()
    err.flush()
    return Run(code, out_bytes.getvalue(), err_bytes.getvalue())


@pytest.fixture
def echo_env(sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch) -> SandboxServer:
    """The sandbox accepting the echo tokens, which are the ones in the environment."""
    add_echo_tokens(sandbox)
    monkeypatch.setenv("BOTTUI_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", ECHO_ACCESS_TOKEN)
    monkeypatch.setenv("BOTTUI_API_KEY", ECHO_PROJECT_TOKEN)
    return sandbox


def _operations(json_flag: tuple[str, ...]) -> Iterator[Run]:
    yield cli("limiter", "disable", "rl-login", *scope(), *json_flag)
    yield cli("revoke", *scope(), "--visitor-id", "vis_7Hq2kP9xLm", *json_flag)
    yield cli(
        "thresholds", "set", "bot-score", *scope(), "--name", "Bot score",
        "--block", "0.9", "--challenge", "0.5", *json_flag,
    )  # fmt: skip


def _sqlite_texts(path: Path) -> list[str]:
    """Every text and blob cell of every table of a SQLite file, as text."""
    texts: list[str] = []
    with sqlite3.connect(path) as db:
        db.text_factory = lambda raw: raw.decode("utf-8", "surrogateescape")
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in db.execute(f'SELECT * FROM "{table}"'):
                texts += [str(cell) for cell in row if isinstance(cell, str | bytes)]
    return texts


def _assert_no_token(texts: list[str]) -> None:
    blob = "\n".join(texts)
    # The JSON in the files escapes "/" in no way, but json.dumps of a str may
    # escape "\u..." only for non-ASCII: the tokens are ASCII, so raw search holds.
    leaked = [form for form in FORMS if form in blob]
    assert not leaked, leaked


def test_an_echoed_token_is_never_printed_journaled_learned_or_exported(
    echo_env: SandboxServer, tmp_path: Path
) -> None:
    echo_env.faults.configure(hostile="token_echo")
    runs = [*_operations(()), *_operations(("--json",))]
    assert [r.code for r in runs] == [0, 0, 0, 0, 0, 0], [r.text for r in runs]
    echo_env.faults.configure(hostile_status=400)
    errors = [*_operations(()), *_operations(("--json",))]
    assert {r.code for r in errors} == {1}
    ids = tmp_path / "ids.txt"
    ids.write_text("vis_7Hq2kP9xLm\nvis_other_1\n", encoding="utf-8")
    for output in ("results.csv", "results.jsonl"):
        runs.append(
            cli("revoke", *scope(), "--from-file", str(ids), "--output", str(tmp_path / output))
        )
    echo_env.faults.configure(hostile_status=0)
    runs.append(
        cli("revoke", *scope(), "--from-file", str(ids), "--output", str(tmp_path / "ok.csv"))
    )
    exports = [tmp_path / "journal.jsonl", tmp_path / "journal.csv", tmp_path / "inventory.toml"]
    runs += [
        cli("journal"),
        cli("journal", "--json"),
        cli("journal", "--export", str(exports[0])),
        cli("journal", "--export", str(exports[1])),
        cli("inventory", "list"),
        cli("inventory", "list", "--json"),
        cli("inventory", "export", str(exports[2])),
    ]
    texts = [r.text for r in runs + errors]
    assert any("***" in r.text for r in errors)  # the echo was there, masked
    texts += [path.read_text(encoding="utf-8") for path in exports]
    texts += [
        (tmp_path / name).read_text(encoding="utf-8")
        for name in ("results.csv", "results.jsonl", "ok.csv")
    ]
    locations = Locations.default()
    journal_cells = _sqlite_texts(locations.journal_file)
    inventory_cells = _sqlite_texts(locations.inventory_file)
    assert journal_cells and inventory_cells
    assert any("***" in cell for cell in journal_cells)
    _assert_no_token(texts + journal_cells + inventory_cells)


def _seed_journal(rows: list[tuple[dict[str, object], dict[str, object]]], base_url: str) -> None:
    """Rows written straight into the journal, as an older bottui wrote them."""
    with Journal.at(Locations.default()) as journal:
        for target, error in rows:
            entry_id = journal.start(
                profile="default",
                base_url=base_url,
                operation=Operation.REVOKE_GRANT,
                account=DEMO_ACCOUNT,
                project=PROJ,
                target=target,
                request_body={"subject": target},
            )
            journal.finish(
                entry_id, outcome="api-error", status=401, result=None, error=error, duration_ms=3.0
            )


def _journal_reads(tmp_path: Path) -> list[Run]:
    runs = [cli("journal"), cli("journal", "--json")]
    for name in ("j.jsonl", "j.csv"):
        runs.append(cli("journal", "--export", str(tmp_path / name)))
    runs.append(cli("journal", "--export", str(tmp_path / "j.txt"), "--format", "csv"))
    return runs


@pytest.mark.parametrize("where", ["environment", "keyring"])
def test_tokens_already_in_the_journal_are_masked_on_read_and_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring: InMemoryKeyring, where: str
) -> None:
    # A token no other test sends: nothing but the read path can know it.
    token = "pat_old_" + secrets.token_hex(12)
    base_url = "https://api.example.test"
    if where == "environment":
        monkeypatch.setenv("BOTTUI_ACCESS_TOKEN", token)
    else:
        memory_keyring.set_password("bottui", personal_username(base_url, DEMO_ACCOUNT), token)
    encoded = [token, quote(token, safe=""), b64encode(token.encode()).decode()]
    message = "invalid key " + " / ".join(encoded)
    _seed_journal(
        [({"visitorId": "v1"}, {"status": 401, "message": message, "context": encoded})], base_url
    )
    runs = _journal_reads(tmp_path)
    assert [r.code for r in runs] == [0] * len(runs), [r.text for r in runs]
    texts = [r.text for r in runs]
    texts += [
        (tmp_path / name).read_text(encoding="utf-8") for name in ("j.jsonl", "j.csv", "j.txt")
    ]
    assert all(not any(form in text for form in encoded) for text in texts)
    assert "invalid key ***" in texts[1]


def test_lone_surrogates_already_in_the_journal_are_read_and_exported(tmp_path: Path) -> None:
    _seed_journal(
        [
            (
                {"visitorId": "v\ud800"},
                {"status": 400, "message": "bad \ud800 \udfff", "code": "\udc00"},
            ),
            ({"userAccountId": "u1"}, {"context": {"\ud800k": ["\udfff"]}, "message": "m"}),
        ],
        "https://api.example.test",
    )
    runs = _journal_reads(tmp_path)
    assert [r.code for r in runs] == [0] * len(runs), [r.err for r in runs]
    assert "\ufffd" in runs[0].text
    assert json.loads(runs[1].out)["count"] == 2
    for name in ("j.jsonl", "j.csv", "j.txt"):
        (tmp_path / name).read_text(encoding="utf-8")  # valid UTF-8


@pytest.mark.parametrize("status", [0, 400])
def test_lone_surrogates_from_the_server_for_each_operation(
    echo_env: SandboxServer, tmp_path: Path, status: int
) -> None:
    echo_env.faults.configure(hostile="surrogates", hostile_status=status)
    runs = [*_operations(()), *_operations(("--json",))]
    expected = 0 if status == 0 else 1
    assert [r.code for r in runs] == [expected] * 6, [r.text for r in runs]
    assert all("Traceback" not in r.text for r in runs)
    if status:
        assert all("\ufffd" in r.err.decode() for r in runs)
    runs = _journal_reads(tmp_path)
    assert [r.code for r in runs] == [0] * len(runs), [r.err for r in runs]
    assert json.loads(runs[1].out)["count"] == 6


@pytest.mark.parametrize("kind", ["c1", "bidi"])
def test_json_escapes_c1_and_bidi(echo_env: SandboxServer, tmp_path: Path, kind: str) -> None:
    echo_env.faults.configure(hostile=kind)
    limiter = cli("limiter", "disable", "rl-login", *scope(), "--json")
    revoke = cli("revoke", *scope(), "--visitor-id", "vis_7Hq2kP9xLm", "--json")
    echo_env.faults.configure(hostile_status=400)
    error = cli("revoke", *scope(), "--visitor-id", "v2", "--json")
    ids = tmp_path / "ids.txt"
    ids.write_text("v3\n", encoding="utf-8")
    bulk = cli(
        "revoke", *scope(), "--from-file", str(ids), "--output", str(tmp_path / "r.jsonl"), "--json"
    )
    journal = cli("journal", "--json")
    cli("journal", "--export", str(tmp_path / "j.jsonl"))
    documents = [r.out.decode("utf-8") for r in (limiter, revoke, error, bulk, journal)]
    documents += [(tmp_path / name).read_text(encoding="utf-8") for name in ("r.jsonl", "j.jsonl")]
    for text in documents:
        assert text.strip()
        assert not [ch for ch in C1_AND_BIDI if ch in text], text
    # The escapes decode back to the server's very strings.
    payload = "\x9b2J" if kind == "c1" else "\u202e"
    assert payload in json.loads(documents[0])["name"]
    assert payload in json.loads(documents[1])["reportId"]
    assert payload in json.loads(documents[2])["error"]["message"]
    entries = json.loads(documents[4])["entries"]
    assert any(payload in json.dumps(e["error"], ensure_ascii=False) for e in entries)
