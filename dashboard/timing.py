"""How long the site takes to answer, as the server sees it: ``RequestTimer``, an ASGI
middleware feeding the ``arena_http_request_seconds`` histogram of ``/metrics``, by
route: the template of the route that answers (``/matches/{match_id}``), ``/static``
for the static files, and ``unmatched`` for every path no route serves. The labels are
a fixed set, whatever paths strangers ask for (20,000 made-up paths once made 300,000
series and a 6.5 s scrape). What a reader measures beside it adds the network and the
reader's own machine (``arena bench site`` reports both)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from prometheus_client import CollectorRegistry, Histogram

from dashboard.api import PREFIX as API_PREFIX
from dashboard.limits import Message, Receive, Scope, Send

#: seconds: the histogram's upper bounds
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: the label of a request no route serves (a 404)
UNMATCHED = "unmatched"
STATIC = "/static"


def histogram(registry: CollectorRegistry) -> Histogram:
    return Histogram(
        "arena_http_request_seconds",
        "Seconds from a request's arrival to its response's last byte, by route",
        ["route"],
        buckets=BUCKETS,
        registry=registry,
    )


def route_of(scope: Scope) -> str:
    """The template of the route that answered (set in the scope by the router, or by
    the page cache for a kept page), ``/static`` for a static file, else
    :data:`UNMATCHED`."""
    route = scope.get("route")
    path: str = scope["path"]
    template = getattr(route, "path", None)
    if not isinstance(template, str):
        return STATIC if path.startswith(f"{STATIC}/") else UNMATCHED
    # the API's routes are declared under its prefix
    return f"{API_PREFIX}{template}" if path.startswith(f"{API_PREFIX}/") else template


class RequestTimer:
    def __init__(self, app: Callable[..., Awaitable[None]], seconds: Histogram) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()

        async def timed(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.seconds.labels(route_of(scope)).observe(time.perf_counter() - began)

        await self.app(scope, receive, timed)
