"""``bottui help [TOPIC]``: the topics, one topic, or a command's help; and the ``--json`` shapes.

``bottui help`` lists the topics (:data:`bottui.cli.parser.TOPICS`, with
their summaries); ``bottui help TOPIC`` prints one (:func:`text`); ``bottui
help COMMAND`` prints what ``bottui COMMAND --help`` does. Anything else is
refused (exit 2) naming the closest topic or command. With ``--json``:
``{"topics": [{"topic", "summary"}, ...]}``, ``{"topic", "text"}`` or
``{"command", "text"}``. To add a topic, name it in ``TOPICS`` and write its
text in ``bottui/cli/help/TOPIC.txt`` (package data, read when the topic is asked for).

The shape of every ``--json`` document, as data: documented, and checked by the tests.

Each schema is a small JSON Schema (Draft 2020-12: ``type``, ``properties``,
``required``, ``additionalProperties``, ``items``, ``enum``, ``anyOf``), so a
script author can read it or hand it to any validator, and
``tests/cli/test_json_schemas.py`` validates real outputs of the sandbox
against it with the ``jsonschema`` library (a test dependency; bottui itself
only describes the schemas, it never validates): a field renamed,
dropped or added without its schema fails a test. bottui's own documents
are closed (no field beyond those listed); the project document of
``limiter`` is the API's own and stays open.

``bottui help json`` and the docs' page ``docs/reference/json.md`` are written
from :func:`describe`.
The topic ``bottui help json`` is written from the same data (:func:`json_text`),
so the help cannot drift from what bottui prints.
"""

from __future__ import annotations

from typing import Any, Final

from bottui.api.errors import EXIT_OK
from bottui.cli.argv_text import shown
from bottui.cli.output import Output, UsageError
from bottui.cli.parser import (
    TOPICS,
    VARIABLES,
    Args,
    build_parser,
    closest,
    command,
    help_file,
    subcommands,
)

# -- the --json documents ---------------------------------------------------------------

Schema = dict[str, Any]

STRING: Final[Schema] = {"type": "string"}
INT: Final[Schema] = {"type": "integer"}
NUMBER: Final[Schema] = {"type": "number"}
BOOL: Final[Schema] = {"type": "boolean"}
ANY: Final[Schema] = {}


def nullable(schema: Schema) -> Schema:
    """``schema`` or ``null``."""
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: Schema) -> Schema:
    """An array of ``items``."""
    return {"type": "array", "items": items}


def obj(props: dict[str, Schema], *, optional: tuple[str, ...] = (), open_: bool = False) -> Schema:
    """An object with ``props``, all required except ``optional``; closed unless ``open_``."""
    return {
        "type": "object",
        "properties": props,
        "required": [k for k in props if k not in optional],
        "additionalProperties": open_,
    }


S_STR = nullable(STRING)
S_INT = nullable(INT)

ERROR: Final = obj(
    {
        "error": obj(
            {
                "status": S_INT,
                "message": STRING,
                "code": STRING,
                "type": STRING,
                "context": ANY,
            }
        )
    }
)
#: The account and project a change or a record belongs to.
_SCOPE: Final = {"account": STRING, "project": STRING}
REQUEST: Final = obj({"method": STRING, "url": STRING, "body": S_STR, "curl": STRING})
#: A timed change's revert: after how long, to what, and whether the operator stated it.
REVERT: Final = obj({"afterSeconds": INT, "to": STRING, "stated": BOOL})
DRY_RUN: Final = obj(
    {
        "dryRun": {"enum": [True]},
        "requests": array(REQUEST),
        "revert": REVERT,
        "wouldBeRefused": STRING,
    },
    optional=("revert", "wouldBeRefused"),
)
RATE_LIMITER: Final = obj(
    {"id": STRING, "name": STRING, "isActive": BOOL, "threshold": INT, "period": INT},
    open_=True,
)
PROJECT: Final = obj(
    {
        "id": STRING,
        "name": STRING,
        "serverKey": STRING,
        "rateLimits": obj({"order": array(STRING), "rateLimits": array(RATE_LIMITER)}),
    },
    open_=True,
)
REVOCATION: Final = obj(
    {
        "revoked": BOOL,
        "reportId": S_STR,
        "grantExpiresAt": S_STR,
        "grantRemainingAttempts": S_INT,
        "outcome": {"enum": ["withdrawn", "nothing was standing"]},
    }
)
INVALID_LINE: Final = obj({"line": INT, "reason": STRING})
BULK: Final = obj(
    {
        "total": INT,
        "withdrawn": INT,
        "nothingStanding": INT,
        "unknown": INT,
        "unknownRetried": INT,
        "failed": INT,
        "invalid": array(INVALID_LINE),
        "elapsedSeconds": NUMBER,
        "skipped": INT,
        "notSent": INT,
        "duplicates": INT,
        "invalidCount": INT,
        "interrupted": BOOL,
        "stoppedBy": S_STR,
        "errors": array(obj({"error": STRING, "count": INT})),
        "rateLimitPauses": INT,
        "runId": S_INT,
    }
)
BULK_DRY_RUN: Final = obj(
    {
        "dryRun": {"enum": [True]},
        "wouldBeRefused": STRING,
        "requests": array(obj({"line": INT, **REQUEST["properties"]})),
        "count": INT,
        "shown": INT,
        "duplicates": INT,
        "invalid": array(INVALID_LINE),
        "invalidCount": INT,
    },
    optional=("wouldBeRefused",),
)
THRESHOLDS: Final = obj(
    {"dimensionId": STRING, "name": STRING, "blockThreshold": NUMBER, "challengeThreshold": NUMBER}
)
#: ``previous``, ``from``, ``to``: a limiter's state or a dimension's thresholds.
VALUE: Final = {
    "title": "{isActive: boolean} or {name: string, blockThreshold: number, "
    "challengeThreshold: number}",
    "anyOf": [
        obj({"isActive": BOOL}),
        obj({"name": STRING, "blockThreshold": NUMBER, "challengeThreshold": NUMBER}),
    ],
}
UNDO: Final = obj(
    {
        "kind": {"enum": ["limiter", "thresholds"]},
        "undoes": INT,
        **_SCOPE,
        "target": obj({}, open_=True),
        "from": nullable(VALUE),
        "to": VALUE,
        "journalId": S_INT,
    }
)
JOURNAL_ENTRY: Final = obj(
    {
        "id": INT,
        "started_at": STRING,
        "operator": STRING,
        "pid": S_INT,
        "profile": STRING,
        "base_url": STRING,
        "operation": {"enum": ["limiter.set-active", "thresholds.set", "grant.revoke"]},
        **_SCOPE,
        "target": obj({}, open_=True),
        "request_body": nullable(obj({}, open_=True)),
        "previous": nullable(VALUE),
        "undo_of": S_INT,
        "run_id": S_INT,
        "item_key": S_STR,
        "unfinished": BOOL,
        "finished_at": S_STR,
        "outcome": S_STR,
        "status": S_INT,
        "result": nullable(obj({}, open_=True)),
        "error": nullable(obj({}, open_=True)),
        "duration_ms": nullable(NUMBER),
        "event_id": S_STR,
        "host": S_STR,
        "reason": S_STR,
        "shared": BOOL,
    },
    optional=("shared",),
)
JOURNAL: Final = obj(
    {"entries": array(JOURNAL_ENTRY), "count": INT, "next_before": S_INT, "error": ANY},
    optional=("error",),
)
JOURNAL_EXPORT: Final = obj({"exported": INT, "file": STRING, "format": {"enum": ["jsonl", "csv"]}})
_KNOWN: Final = {"source": STRING, "taught_by": S_STR}
_FILE_PROBLEM: Final = obj({"file": STRING, "line": S_INT, "message": STRING})
INVENTORY: Final = obj(
    {
        "profile": STRING,
        "accounts": array(
            obj({"account": STRING, "name": S_STR, "updated_at": STRING, "source": STRING})
        ),
        "projects": array(
            obj(
                {
                    **_SCOPE,
                    "name": S_STR,
                    "updated_at": STRING,
                    **_KNOWN,
                }
            )
        ),
        "limiters": array(
            obj(
                {
                    **_SCOPE,
                    "id": STRING,
                    "name": S_STR,
                    "is_active": nullable(BOOL),
                    "known_at": STRING,
                    **_KNOWN,
                }
            )
        ),
        "dimensions": array(
            obj(
                {
                    **_SCOPE,
                    "id": STRING,
                    "name": S_STR,
                    "block": nullable(NUMBER),
                    "challenge": nullable(NUMBER),
                    "known_at": STRING,
                    **_KNOWN,
                }
            )
        ),
    }
)
INVENTORY_IMPORT: Final = obj(
    {"file": STRING, "added": INT, "changed": INT, "unchanged": INT, "lines": array(STRING)}
)
INVENTORY_EXPORT: Final = obj(
    {"file": STRING, "accounts": INT, "projects": INT, "limiters": INT, "dimensions": INT}
)
PROFILE_LIST: Final = obj(
    {
        "current": S_STR,
        "profiles": array(
            obj(
                {
                    "name": STRING,
                    "baseUrl": STRING,
                    "readOnly": BOOL,
                    "protected": BOOL,
                    "account": S_STR,
                    "project": S_STR,
                }
            )
        ),
    }
)
TOKEN_KIND: Final = {"enum": ["personal", "project", "store"]}
TOKEN_STATUS: Final = obj(
    {
        "baseUrl": STRING,
        "tokens": array(
            obj({"kind": TOKEN_KIND, "account": STRING, "project": S_STR, "state": STRING})
        ),
    }
)
STORE_STATUS: Final = obj(
    {
        "where": STRING,
        "schemaVersion": S_INT,
        "appSchemaVersion": INT,
        "serverVersion": S_STR,
        "role": S_STR,
        "waiting": INT,
        "notShared": INT,
        "lastSync": S_STR,
    }
)
CONFIG_CHECK: Final = obj(
    {
        "file": STRING,
        "exists": BOOL,
        "problems": array(_FILE_PROBLEM),
        "count": INT,
        "warnings": array(_FILE_PROBLEM),
    }
)

#: Every document, by the command line that prints it (the order of the help).
SCHEMAS: Final[dict[str, Schema]] = {
    "limiter enable|disable": PROJECT,
    "revoke --visitor-id|--user-account-id": REVOCATION,
    "revoke --from-file": BULK,
    "revoke --from-file --dry-run": BULK_DRY_RUN,
    "thresholds set": THRESHOLDS,
    "undo": UNDO,
    "any change --dry-run": DRY_RUN,
    "journal": JOURNAL,
    "journal --jsonl (each line)": JOURNAL_ENTRY,
    "journal --export FILE": JOURNAL_EXPORT,
    "inventory list": INVENTORY,
    "inventory import": INVENTORY_IMPORT,
    "inventory export": INVENTORY_EXPORT,
    "profile list": PROFILE_LIST,
    "profile add": obj({"added": STRING}),
    "profile edit": obj(
        {
            "edited": STRING,
            "baseUrl": STRING,
            "readOnly": BOOL,
            "protected": BOOL,
            "requireReason": BOOL,
            "store": S_STR,
            "operator": S_STR,
            "account": S_STR,
            "project": S_STR,
        }
    ),
    "profile use": obj({"current": STRING}),
    "profile remove": obj({"removed": STRING}),
    "token status": TOKEN_STATUS,
    "token set personal|project": obj({"stored": TOKEN_KIND, "account": STRING, "project": S_STR}),
    "token set store": obj({"stored": {"enum": ["store"]}, "where": STRING}),
    "token delete": obj({"deleted": BOOL, "kind": TOKEN_KIND}),
    "store migrate": obj({"where": STRING, "before": INT, "after": INT, "applied": array(INT)}),
    "store status": STORE_STATUS,
    "store sync": obj(
        {"where": STRING, "waiting": INT, "lastSync": S_STR, "error": S_STR, "backfilled": INT},
        optional=("backfilled",),
    ),
    "config check": CONFIG_CHECK,
    "any command that fails": ERROR,
}


def type_name(schema: Schema) -> str:
    """``string``, ``integer or null``, ``array of object``, ``"ok" | "csv"``."""
    if "title" in schema:
        return str(schema["title"])
    if "anyOf" in schema:
        return " or ".join(type_name(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(_literal(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind is None:
        return "any"
    if kind == "array":
        return f"array of {type_name(schema.get('items', ANY))}"
    return str(kind)


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def describe(schema: Schema, indent: str = "  ") -> list[str]:
    """The schema as indented lines: ``name  type`` per field, objects inside."""
    lines: list[str] = []
    target = schema.get("items", schema) if schema.get("type") == "array" else schema
    props: dict[str, Schema] = target.get("properties", {})
    optional = set(props) - set(target.get("required", props))
    for key, sub in props.items():
        mark = " (optional)" if key in optional else ""
        inner = sub.get("items", sub) if sub.get("type") == "array" else sub
        lines.append(f"{indent}{key}: {type_name(sub)}{mark}")
        if inner.get("properties"):
            lines += describe(inner, indent + "  ")
    if target.get("additionalProperties", True) is not False and props:
        lines.append(f"{indent}... (more fields, as the API sends them)")
    return lines


def json_text() -> str:
    """The whole ``json`` topic: its rules (``help/json.txt``), then each command's fields."""
    parts = [help_file("json")]
    for name, schema in SCHEMAS.items():
        parts.append(f"bottui {name} --json" if not name.startswith("any") else name)
        parts.append("\n".join(describe(schema)) + "\n")
    return "\n".join(parts)


def text(name: str) -> str:
    """The text of the topic ``name``: its file; ``json`` and ``environment`` add the
    schemas' fields (:func:`json_text`) and :data:`~bottui.cli.parser.VARIABLES`."""
    if name == "json":
        return json_text()
    variables = "\n".join(f"  {var:<23}{meaning}" for var, meaning in VARIABLES.items())
    return help_file(name).replace("{variables}", variables)


# -- the command -------------------------------------------------------------------------


def cmd_help(args: Args, out: Output) -> int:
    """``bottui help [TOPIC]``."""
    wanted: str | None = args.topic
    if wanted is None:
        listed = [{"topic": name, "summary": TOPICS[name]} for name in TOPICS]
        lines = [
            "Help topics (`bottui help TOPIC`):",
            "",
            *(f"  {name:<13}{summary}" for name, summary in TOPICS.items()),
            "",
            "Each command explains itself too: `bottui COMMAND --help` or `bottui help COMMAND`.",
        ]
        out.result({"topics": listed}, lines)
        return EXIT_OK
    if wanted in TOPICS:
        _show(out, {"topic": wanted}, text(wanted))
        return EXIT_OK
    commands = subcommands(build_parser())
    if wanted in commands:
        _show(out, {"command": wanted}, commands[wanted].format_help())
        return EXIT_OK
    near = closest(wanted, [*TOPICS, *commands])
    hint = f"; did you mean '{near}'?" if near else ""
    raise UsageError(
        f"no help topic or command '{shown(wanted)}'{hint} (`bottui help` lists the topics)"
    )


def _show(out: Output, what: dict[str, str], text: str) -> None:
    """``text`` line by line (``out`` keeps no newline inside a line), or one document."""
    out.result({**what, "text": text}, text.rstrip("\n").splitlines())


def _add_help(commands: Any) -> None:
    sub = command(
        commands,
        "help",
        examples=["bottui help", "bottui help exit-codes", "bottui help revoke"],
        exits=[0, (2, "no such topic or command (the closest is suggested)")],
        common={"json"},
    )
    sub.add_argument(
        "topic", nargs="?", metavar="TOPIC", help="a topic or a command (default: list the topics)"
    )


#: The command's parser (:data:`bottui.cli.COMMANDS`).
PARSERS: Final = {"help": _add_help}
