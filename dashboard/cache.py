"""Public pages served from memory for a moment: ``PageCache``, an ASGI middleware.

A page costs the dashboard 3–15 ms of CPU (queries, Jinja, JSON); two hundred readers
ask for two hundred a second, most of them the same few. A response is kept, and served
again to anyone, only when nothing about it is personal and it says for how long:

- the request is a ``GET`` without credentials (no ``Authorization``, no cookie): what
  an owner's token unlocks (their own cards before a match is settled) is never kept;
- the response is a 200 whose ``Cache-Control`` is ``public, max-age=N`` (N > 0): routes
  say it themselves (:func:`public`); the site's pages and public lists get
  :data:`DEFAULT_SECONDS` from this middleware when they say nothing; a response that
  says ``private`` or ``no-store`` is never kept;
- the body is complete and small (:data:`MAX_BODY_BYTES`; streams are passed through).

A reader that asks for a fresh copy (``Cache-Control: no-cache``: the live pages' last
look at a tournament that ended) gets one, kept for the others.
Readers asking for a page that is being made wait for it instead of making it again,
and a page past its ``max-age`` is still served for :data:`STALE_SECONDS` while one
fresh copy is made behind it (``stale-while-revalidate``): a reader never waits for a
page others read a moment ago.
A change made through the site (any other method than ``GET``, answered with a 2xx, on a
path outside :data:`NEVER`) empties the cache: its author sees it on the next page;
what workers record shows within the ``max-age``. A request that changed nothing (a
404, a 401, a refused body: 50 of those a second once cut the pages served by a third)
leaves it as it is.
What is kept is bounded in entries (:data:`MAX_ENTRIES`) and in bytes
(:data:`MAX_KEPT_BYTES`, the oldest read going first); the same page under many query
strings is kept once (entries share a body by its digest), so made-up query strings
cost a key each, not a page each.
A page is at most its ``max-age`` and the time to make it again old: standings a second
or two behind the database; a hand never shown before the platform shows it (a kept page
is one anybody could read, and a page kept past its age is an older, more secret one).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from arena.services.views.disclosure import Disclosure
from dashboard.limits import Message, Receive, Scope, Send

log = logging.getLogger(__name__)

#: seconds a public page or list is kept when its route says nothing
DEFAULT_SECONDS = 1.0
#: seconds a page past its age is still served while a fresh one is made
STALE_SECONDS = 10.0
#: what never changes again (a disclosed match's log and page: only the words that say why
#: it is public may, from "every rotation is played" to "the tournament is over") is kept
#: this long
SETTLED_SECONDS = 300
#: the longest a route may ask for
MAX_SECONDS = 3600.0
#: pages kept at most, the largest kept, and the bytes of all kept bodies together
MAX_ENTRIES = 4096
MAX_BODY_BYTES = 2 * 2**20
MAX_KEPT_BYTES = 64 * 2**20
#: pages made at once (each in a thread holding the GIL): more would starve the event
#: loop that serves the kept ones (40 at once made every kept page wait seconds)
MAKERS = 2
#: paths never kept whatever they say: the operator's, the live ones, the probes'
NEVER = (
    "/metrics",
    "/healthz",
    "/readyz",
    "/api/v1/operator",
    "/api/v1/owner",
    "/live",
    "/api/v1/tables",
    "/tables",
)


def public(seconds: float) -> dict[str, str]:
    """The header a route sets on a response anyone may be shown for ``seconds``."""
    return {"Cache-Control": f"public, max-age={int(seconds)}"}


def until_disclosed(shown: Disclosure) -> dict[str, str]:
    """The header of what anyone may read of a played match: it changes once, when its
    log is disclosed (kept up to that moment, never past it), then never again."""
    if shown.public:
        return public(SETTLED_SECONDS)
    if shown.due is not None:
        left = (shown.due - datetime.now(UTC)).total_seconds()
        return public(min(left, SETTLED_SECONDS)) if left >= 1 else {}
    return {}


@dataclass(frozen=True)
class Kept:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    until: float
    #: the route that made it (what the site's timer labels a request by)
    route: object = None
    digest: bytes = b""


class PageCache:
    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        default_seconds: float = DEFAULT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.default_seconds = default_seconds
        self.clock = clock
        self._kept: OrderedDict[tuple[str, bytes], Kept] = OrderedDict()
        #: kept bodies by digest, with how many entries share each
        self._bodies: dict[bytes, tuple[bytes, int]] = {}
        self._bytes = 0
        self._making: dict[tuple[str, bytes], asyncio.Future[Kept | None]] = {}
        self._refreshing: set[asyncio.Task[None]] = set()
        self._makers = asyncio.Semaphore(MAKERS)
        self.hits = self.misses = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.default_seconds <= 0:  # the operator turned it off
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            await self._changing(scope, receive, send)
            return
        if not _cacheable_request(scope):
            await self.app(scope, receive, send)
            return
        key = (scope["path"], scope.get("query_string", b""))
        kept = None if _wants_fresh(scope) else self._servable(key, scope)
        if kept is None and key in self._making:
            kept = await asyncio.shield(self._making[key])
        if kept is not None:
            self.hits += 1
            scope["route"] = kept.route
            await _replay(kept, send)
            return
        self.misses += 1
        await self._made(key, scope, receive, send)

    async def _changing(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A request that may change what pages show: once it changed something (a 2xx
        outside the paths never kept), the cache is emptied, so its author sees it."""
        answered = 0

        async def watching(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start":
                answered = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watching)
        finally:
            if 200 <= answered < 300 and not scope["path"].startswith(NEVER):
                self.clear()

    def clear(self) -> None:
        self._kept.clear()
        self._bodies.clear()
        self._bytes = 0

    @property
    def kept_bytes(self) -> int:
        """The bytes of the kept bodies (each distinct body once)."""
        return self._bytes

    def _servable(self, key: tuple[str, bytes], scope: Scope) -> Kept | None:
        """The page kept for ``key`` if it may be served: fresh, or stale for a few
        seconds while a fresh one is made behind it."""
        kept = self._kept.get(key)
        if kept is None:
            return None
        now = self.clock()
        if kept.until + STALE_SECONDS <= now:
            self._forget(key)
            return None
        self._kept.move_to_end(key)
        if kept.until <= now and key not in self._making:
            task = asyncio.create_task(self._refresh(key, dict(scope)))
            self._refreshing.add(task)
            task.add_done_callback(self._refreshing.discard)
        return kept

    async def _refresh(self, key: tuple[str, bytes], scope: Scope) -> None:
        try:
            await self._made(key, scope, _no_body, _nowhere)
        except Exception:  # the stale page ages out; the next reader makes it and sees why
            log.debug("a fresh copy of %s could not be made", scope["path"], exc_info=True)

    async def settled(self) -> None:
        """Wait for the fresh copies being made behind stale pages."""
        while self._refreshing:
            await asyncio.gather(*self._refreshing)

    async def _made(
        self, key: tuple[str, bytes], scope: Scope, receive: Receive, send: Send
    ) -> None:
        """Make the page (readers of ``key`` meanwhile wait for it) and keep it if it may be."""
        making: asyncio.Future[Kept | None] = asyncio.get_running_loop().create_future()
        self._making[key] = making
        kept = None
        try:
            async with self._makers:
                kept = await self._make(scope, receive, send)
        finally:
            if self._making.get(key) is making:
                del self._making[key]
            making.set_result(kept)
        if kept is not None:
            self._keep(key, kept)

    def _keep(self, key: tuple[str, bytes], kept: Kept) -> None:
        if key in self._kept:
            self._forget(key)
        digest = hashlib.blake2b(kept.body, digest_size=16).digest()
        body, users = self._bodies.get(digest, (kept.body, 0))
        self._bodies[digest] = (body, users + 1)
        self._kept[key] = replace(kept, body=body, digest=digest)
        if users == 0:
            self._bytes += len(body)
        while len(self._kept) > MAX_ENTRIES or (self._bytes > MAX_KEPT_BYTES and self._kept):
            self._forget(next(iter(self._kept)))

    def _forget(self, key: tuple[str, bytes]) -> None:
        kept = self._kept.pop(key)
        body, users = self._bodies[kept.digest]
        if users > 1:
            self._bodies[kept.digest] = (body, users - 1)
        else:
            del self._bodies[kept.digest]
            self._bytes -= len(body)

    async def _make(self, scope: Scope, receive: Receive, send: Send) -> Kept | None:
        """Run the route, passing its response on, and what may be kept of it."""
        start: Message = {}
        body: list[bytes] = []
        keep = True

        async def passing(message: Message) -> None:
            nonlocal keep
            if message["type"] == "http.response.start":
                start.update(message)
                message = {**message, "headers": self._marked(scope, message)}
                keep = _seconds(message) is not None and message["status"] == 200
            elif message["type"] == "http.response.body" and keep:
                body.append(message.get("body", b""))
                keep = sum(map(len, body)) <= MAX_BODY_BYTES
            await send(message)

        await self.app(scope, receive, passing)
        if not keep or not start:
            return None
        headers = self._marked(scope, start)
        seconds = _seconds({"headers": headers})
        assert seconds is not None
        made = b"".join(body)
        return Kept(start["status"], headers, made, self.clock() + seconds, scope.get("route"))

    def _marked(self, scope: Scope, start: Message) -> list[tuple[bytes, bytes]]:
        """The response's headers, with the default ``Cache-Control`` for a public page
        or list whose route set none."""
        headers = list(start.get("headers", []))
        if self.default_seconds <= 0 or any(k.lower() == b"cache-control" for k, _ in headers):
            return headers
        kind = dict((k.lower(), v) for k, v in headers).get(b"content-type", b"")
        if not kind.startswith((b"text/html", b"application/json")):
            return headers
        age = f"public, max-age={max(1, int(self.default_seconds))}".encode()
        return [*headers, (b"cache-control", age)]


def _cacheable_request(scope: Scope) -> bool:
    if scope["type"] != "http" or scope["method"] != "GET":
        return False
    if scope["path"].startswith(NEVER) or scope["path"].startswith("/static"):
        return False
    return not any(name in (b"authorization", b"cookie") for name, _ in scope["headers"])


def _wants_fresh(scope: Scope) -> bool:
    """The reader asks for a fresh copy (``Cache-Control: no-cache`` or ``max-age=0``,
    ``Pragma: no-cache``: a browser's ``fetch(url, {cache: "reload"})``)."""
    for name, value in scope["headers"]:
        name, value = name.lower(), value.lower()
        if name == b"pragma" and b"no-cache" in value:
            return True
        if name == b"cache-control" and (b"no-cache" in value or b"max-age=0" in value):
            return True
    return False


def _seconds(start: Message) -> float | None:
    """The ``max-age`` of a public response, if it may be kept."""
    for name, value in start.get("headers", []):
        if name.lower() != b"cache-control":
            continue
        parts = [part.strip() for part in value.decode("latin-1").lower().split(",")]
        if "public" not in parts or "no-store" in parts or "private" in parts:
            return None
        for part in parts:
            if part.startswith("max-age="):
                try:
                    seconds = float(part.removeprefix("max-age="))
                except ValueError:
                    return None
                return min(seconds, MAX_SECONDS) if seconds > 0 else None
    return None


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _nowhere(message: Message) -> None:
    """Where a page made behind a stale one goes: only into the cache."""


async def _replay(kept: Kept, send: Send) -> None:
    await send({"type": "http.response.start", "status": kept.status, "headers": kept.headers})
    await send({"type": "http.response.body", "body": kept.body})
