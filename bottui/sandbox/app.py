"""The ASGI application of the sandbox: :func:`create_app`.

A Starlette app whose router has no routes: every request falls through to
:class:`SandboxASGI`, which routes on ``scope["raw_path"]`` (see
:mod:`bottui.sandbox.routing`), counts and logs API requests, applies the
injected faults, and answers from :mod:`bottui.sandbox.handlers` or, under
``/_sandbox/``, from :mod:`bottui.sandbox.control`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Final

from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from bottui.sandbox import errors
from bottui.sandbox.bodies import plain_json
from bottui.sandbox.control import handle_control
from bottui.sandbox.faults import FaultKind, Faults
from bottui.sandbox.handlers import Result, error_result, handle
from bottui.sandbox.hostile import Hostile, hostile_error, odd_answer
from bottui.sandbox.recorder import RequestRecord, finished, safe_headers
from bottui.sandbox.routing import split_raw_path
from bottui.sandbox.state import SandboxState

#: Largest request body accepted (413 above).
MAX_BODY: Final = 1 << 20

HTML_GARBAGE: Final = (
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
    b"<body><h1>Bad Gateway</h1><p>upstream sent nonsense</p></body></html>"
)


class ConnectionDropped(ConnectionError):
    """Raised by the app to cut a response short (the ``drop_next`` fault).

    Under uvicorn the connection is closed after the partial response; with
    ``httpx.ASGITransport`` the client sees this exception itself.
    """


class DropFilter(logging.Filter):
    """Keeps uvicorn from logging the deliberate :class:`ConnectionDropped` as a crash."""

    def filter(self, record: logging.LogRecord) -> bool:
        """``False`` for uvicorn's report of a deliberate drop."""
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionDropped)


def install_drop_filter() -> None:
    """Add :class:`DropFilter` to the ``uvicorn.error`` logger (once)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, DropFilter) for f in logger.filters):
        logger.addFilter(DropFilter())


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON; ASCII with ``\\uXXXX`` escapes when it holds a lone surrogate."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # the hostile "surrogates" payload: only escapes carry it
        return json.dumps(value, ensure_ascii=True, allow_nan=False).encode("ascii")


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The whole request body, and whether it exceeded :data:`MAX_BODY`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks), False
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size <= MAX_BODY:
            chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), size > MAX_BODY


def _start(status: int, body: bytes, content_type: str, extra: dict[str, str]) -> dict[str, Any]:
    headers = [
        (b"content-type", content_type.encode("latin-1")),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
    ]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()]
    return {"type": "http.response.start", "status": status, "headers": headers}


async def _send(
    send: Send, status: int, body: bytes, content_type: str, extra: dict[str, str]
) -> None:
    await send(_start(status, body, content_type, extra))
    await send({"type": "http.response.body", "body": body, "more_body": False})


class SandboxASGI:
    """The raw ASGI app behind :func:`create_app`."""

    def __init__(self, state: SandboxState, faults: Faults) -> None:
        self.state = state
        self.faults = faults

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one HTTP request (websockets are closed)."""
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            return
        raw_path: bytes = scope.get("raw_path") or scope["path"].encode("utf-8")
        try:
            segments: tuple[str, ...] | None = split_raw_path(raw_path)
        except UnicodeDecodeError:
            segments = None
        body, too_large = await _read_body(receive)
        if segments and segments[0] == "_sandbox":
            result = handle_control(self.state, self.faults, scope["method"], segments, body)
            await _send(
                send, result.status, encode_json(result.body), "application/json", result.headers
            )
            return
        await self._api(scope, send, raw_path, segments, body, too_large)

    async def _api(
        self,
        scope: Scope,
        send: Send,
        raw_path: bytes,
        segments: tuple[str, ...] | None,
        body: bytes,
        too_large: bool,
    ) -> None:
        method: str = scope["method"]
        header_list: list[tuple[bytes, bytes]] = list(scope.get("headers", []))
        headers: dict[str, str] = {}
        for name, value in header_list:
            headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
        record = RequestRecord(
            method=method,
            raw_path=raw_path.decode("latin-1"),
            segments=segments or (),
            query_string=bytes(scope.get("query_string", b"")).decode("latin-1"),
            body=body,
            json=plain_json(body),
            content_type=headers.get("content-type"),
            headers=safe_headers(header_list),
        )
        recorder = self.state.recorder
        recorder.begin()
        ended = False

        def end(
            status: int | None,
            result: Result | None,
            fault: FaultKind | None,
            dropped: bool = False,
        ) -> None:
            # Logged before the last byte leaves: a client that has its answer
            # finds its request in the log.
            nonlocal ended
            ended = True
            recorder.end(
                finished(
                    record,
                    status,
                    auth=result.auth if result else None,
                    fault=fault.value if fault else None,
                    dropped=dropped,
                )
            )

        fault: FaultKind | None = None
        kind = self.faults.hostile
        hostile = Hostile(kind, headers.get("x-api-key", "")) if kind else None
        try:
            await self.faults.delay()
            fault = self.faults.take()
            if fault is FaultKind.DROP:
                await self._drop(send, method, segments, headers, body, end)
                return
            if too_large:
                result = error_result(errors.too_large(MAX_BODY), self.state)
            elif fault in (FaultKind.FAIL, FaultKind.RANDOM_ERROR):
                result = error_result(errors.unavailable(self.faults.error_status), self.state)
            elif fault is FaultKind.RATE_LIMIT:
                result = error_result(errors.rate_limited(self.faults.retry_after), self.state)
            elif fault is FaultKind.NON_JSON:
                end(200, None, fault)
                page = hostile.page(HTML_GARBAGE) if hostile else HTML_GARBAGE
                await _send(send, 200, page, "text/html; charset=utf-8", {})
                return
            elif self.faults.hostile_status:
                result = error_result(hostile_error(self.faults.hostile_status), self.state)
            else:
                result = handle(self.state, method, segments, headers, body)
            payload = hostile.answer(result.status, result.body) if hostile else result.body
            status, encoded = result.status, b""
            odd = self.faults.hostile_body
            if odd is not None and result.status == 200:
                status, encoded = odd_answer(odd, status, payload, encode_json)
            else:
                encoded = encode_json(payload)
            end(status, result, fault)
            await _send(send, status, encoded, "application/json", result.headers)
        finally:
            if not ended:
                end(None, None, fault)

    async def _drop(
        self,
        send: Send,
        method: str,
        segments: tuple[str, ...] | None,
        headers: dict[str, str],
        body: bytes,
        end: Callable[..., None],
    ) -> None:
        """Start a response, send half of it (or none), log it, cut the connection."""
        if self.faults.drop_mode == "after":
            result: Result | None = handle(self.state, method, segments, headers, body)
            assert result is not None
            status, payload = result.status, encode_json(result.body)
            await send(_start(status, payload, "application/json", result.headers))
            half = payload[: len(payload) // 2]
            await send({"type": "http.response.body", "body": half, "more_body": True})
        else:
            result, status = None, 200
            await send(_start(status, b"{}" * 32, "application/json", {}))
        end(status, result, FaultKind.DROP, dropped=True)
        raise ConnectionDropped("sandbox fault: connection dropped mid-response")


def create_app(state: SandboxState, faults: Faults | None = None) -> Starlette:
    """The sandbox as a Starlette app over ``state``, with ``faults`` (default: none)."""
    app = Starlette()
    app.router.default = SandboxASGI(state, faults if faults is not None else Faults())
    return app
