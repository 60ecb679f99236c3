"""Request bodies capped before anything reads them: ``BodyLimit``, an ASGI middleware
outside every route (authentication included), answers 413 to a body over the cap. What
anybody may send without a token (a person's table: a few bots' names, one action) is
capped far lower (:data:`SMALL_BODY_BYTES` under :data:`SMALL_BODY_PATHS`).

A body that says its length (``Content-Length``) is refused before a byte of it is
read; one that does not (chunked) is read up to the cap, then refused. The cap is set by
the largest legitimate upload: a bot's Python source (``MAX_SOURCE_CHARS``) in the
longest JSON spelling of it, with room for the other fields.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from arena.services.views.schemas import MAX_SOURCE_CHARS

#: JSON spells a character in at most six bytes (``\uXXXX``): any source the schema
#: accepts fits, with 64 KiB for the other fields
MAX_BODY_BYTES = 6 * MAX_SOURCE_CHARS + 64 * 1024

#: paths anyone may write to, and what one of their bodies may weigh
SMALL_BODY_PATHS = ("/api/v1/tables",)
SMALL_BODY_BYTES = 16 * 1024

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BodyLimit:
    def __init__(self, app: Callable[..., Awaitable[None]], limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = SMALL_BODY_BYTES if scope["path"].startswith(SMALL_BODY_PATHS) else self.limit
        length = _declared_length(scope)
        if length is not None and length > limit:
            await self._refuse(send, limit)
            return
        if length is not None:  # what it declares is checked; the server reads no more
            await self.app(scope, receive, send)
            return
        body, complete = await _read_up_to(receive, limit)
        if not complete:
            await self._refuse(send, limit)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _refuse(self, send: Send, limit: int) -> None:
        detail = {"detail": f"the request body is over {limit:,} bytes"}
        payload = json.dumps(detail).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _read_up_to(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """The body, and whether it ended within ``limit`` bytes."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"", False
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", False
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # a disconnect, after the body

    return replayed
