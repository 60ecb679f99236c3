"""How the dashboard is served: uvicorn, with two bounds a stranger's request meets
before the application sees it.

- **Whose address a request is.** uvicorn believes ``X-Forwarded-For`` from any peer in
  its ``forwarded_allow_ips``, which it takes as the loopback when nobody says; so any
  client of a site served on the loopback could name itself anybody, and open a
  person's tables under a thousand names. Here forwarding headers are read only from
  the proxies the operator names (``ARENA_TRUSTED_PROXIES``: addresses or networks,
  none by default); from anybody else the address is the connection's.
- **How large a request's head is.** The request line and its headers are read up to
  :data:`MAX_HEAD_BYTES`; past that the answer is 431 and the connection is closed
  (httptools keeps a header in memory whole, and a 64 MB header cost 146 MB).
  Bodies are bounded by ``dashboard.limits.BodyLimit``.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: bytes of a request line and headers together (browsers send a few KiB; nginx's
#: default for the large ones is 4 x 8 KiB)
MAX_HEAD_BYTES = 32 * 1024

_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: 37\r\n"
    b"connection: close\r\n\r\n"
    b"the request's headers are over 32 KiB"
)


class BoundedHead(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request head (the
    request line and the headers) runs past :data:`MAX_HEAD_BYTES`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        self._in_head = True

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._in_head = True

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._in_head and self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
            self.transport.write(_TOO_LARGE)
            self.transport.close()


def config(app: Any, trusted_proxies: Sequence[str] = (), **options: Any) -> uvicorn.Config:
    """uvicorn's settings for the dashboard: forwarding headers believed only from
    ``trusted_proxies``, request heads bounded."""
    return uvicorn.Config(
        app,
        http=BoundedHead,
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=list(trusted_proxies) or None,
        **options,
    )


def freeze_heap() -> None:
    """Put what start-up made (modules, routes, schemas, the models' metadata: some
    200,000 objects) out of the garbage collector's walk, once, before serving: a full
    collection then walks only what serving made since. It walked them all, 90 ms each
    time, about once every 150 requests, and those pauses were every read slower than
    50 ms in ``arena bench season``'s warm reads."""
    gc.collect()
    gc.freeze()
