"""The CLI's one Output cleans every line and message it prints; the renderer uses it."""

from __future__ import annotations

import io

from bottui.api.errors import RefusedError
from bottui.cli.output import Output, render_error

HOSTILE = "id\x1b]0;pwned\x07\x9b31m\u202eevil"
SHOWN = "id\ufffd]0;pwned\ufffd\ufffd31m\ufffdevil"


def test_lines_and_messages_are_cleaned_by_output() -> None:
    out, err = io.StringIO(), io.StringIO()
    output = Output(False, out, err)
    output.line(f"value: {HOSTILE}")
    output.message(f"warning: {HOSTILE}")
    assert out.getvalue() == f"value: {SHOWN}\n"
    assert err.getvalue() == f"warning: {SHOWN}\n"


def test_under_json_lines_go_to_stderr_cleaned_and_the_document_stays_exact() -> None:
    out, err = io.StringIO(), io.StringIO()
    output = Output(True, out, err)
    output.line(HOSTILE)
    output.document({"id": "plain"})
    assert err.getvalue() == f"{SHOWN}\n"
    assert out.getvalue() == '{\n  "id": "plain"\n}\n'


def test_an_error_renders_cleaned_in_text_and_as_its_document_under_json() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = render_error(Output(True, out, err), RefusedError(f"Bad {HOSTILE}", "one\ntwo\x1b"))
    assert code == 2
    assert err.getvalue() == f"error: Bad {SHOWN}\n  one\n  two\ufffd\n"
    assert '"code": "RefusedError"' in out.getvalue()
