"""The one rule of secret members: decoded answers, excerpts of bodies, error contexts."""

from __future__ import annotations

import json

from bottui.api.models import Project
from bottui.api.sending import api_error, excerpt, loads
from bottui.api.tokens import mask_members, mask_text

KEY = "srv_secret_9f8e7d6c"


def test_mask_text_masks_every_spelling_even_cut_short_or_escaped() -> None:
    body = (
        f'{{"serverKey": "{KEY}", "server_key":"{KEY}", "Server-Key": 12345678901,'
        f' "serv\\u0065rKey": "{KEY}", "name": "ok", "serverKey": null, "serverKey": "{KEY[:6]}'
    )
    masked = mask_text(body)
    assert KEY[:6] not in masked and "12345678901" not in masked
    assert '"name": "ok"' in masked and '"serverKey": null' in masked


def test_excerpts_mask_the_key_whatever_the_body() -> None:
    project = json.dumps({"name": "n" * 150, "serverKey": KEY}).encode()
    for body in (project, project[:-5], b"\xff" + project, project.replace(b'"n', b'"\xfe', 1)):
        assert KEY[:4] not in excerpt(body), body
    error = api_error(999, project)
    assert KEY not in str(error) and KEY not in json.dumps(error.to_json())
    context = json.dumps({"message": "m", "code": "c", "type": "t", "context": {"serverKey": KEY}})
    assert KEY not in json.dumps(api_error(400, context.encode()).to_json())


def test_odd_numbers_are_kept_as_text() -> None:
    value = loads(b'{"a": NaN, "b": -Infinity, "c": 1e999, "d": ' + b"9" * 5000 + b', "e": 1.5}')
    assert value == {"a": "NaN", "b": "-Infinity", "c": "1e999", "d": "9" * 5000, "e": 1.5}


def test_a_project_masks_nested_keys_unless_asked() -> None:
    project = Project.from_json({"serverKey": KEY, "extra": [{"server_key": KEY}]})
    assert KEY not in json.dumps(project.to_json())
    assert mask_members({"a": {"ServerKey": KEY}}) == {"a": {"ServerKey": "***"}}
    assert project.to_json(show_secrets=True)["extra"][0]["server_key"] == KEY
