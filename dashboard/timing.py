"""How long the site takes to answer, as the server sees it: ``RequestTimer``, an ASGI
middleware feeding the ``arena_http_request_seconds`` histogram of ``/metrics``, by the
kind of page (the path's first part; under ``/api/v1``, the resource). What a reader
measures beside it adds the network and the reader's own machine (``arena bench site``
reports both)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from prometheus_client import CollectorRegistry, Histogram

from dashboard.limits import Message, Receive, Scope, Send

#: seconds: the histogram's upper bounds
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def histogram(registry: CollectorRegistry) -> Histogram:
    return Histogram(
        "arena_http_request_seconds",
        "Seconds from a request's arrival to its response's last byte, by kind of page",
        ["kind"],
        buckets=BUCKETS,
        registry=registry,
    )


def kind_of(path: str) -> str:
    """``/matches/12`` -> ``matches``; ``/api/v1/matches/12/log`` -> ``api/matches``."""
    parts = [part for part in path.split("/") if part]
    if not parts:
        return "home"
    if parts[0] == "api" and len(parts) > 2:
        return f"api/{parts[2]}"
    return parts[0][:32]


class RequestTimer:
    def __init__(self, app: Callable[..., Awaitable[None]], seconds: Histogram) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        kind = kind_of(scope["path"])

        async def timed(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.seconds.labels(kind).observe(time.perf_counter() - began)

        await self.app(scope, receive, timed)
