"""arena bench site's crowd of readers: each reader on its own connection, every page
timed or its error named, the crowd split over client processes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from arena.bench.readers import Crowd


class _Pages(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a reader's pages share its connection
    clients: set[int] = set()

    def do_GET(self) -> None:
        type(self).clients.add(self.client_address[1])
        found = self.path == "/page"
        body = b"a page" if found else b"no such page"
        self.send_response(200 if found else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    _Pages.clients = set()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def test_every_reader_reads_on_its_own_connection_and_errors_name_their_page(site: str) -> None:
    crowd = Crowd(site, ["/page", "/missing"], readers=6, think=0.01, processes=2)
    crowd.read(window=0.5)
    assert len(crowd.latencies) + len(crowd.errors) >= 6  # each reader read at least once
    assert crowd.latencies, "some reader read the page"
    assert set(crowd.errors) == {"/missing: 404"}
    assert all(latency >= 0 for _, latency in crowd.latencies)
    assert len(_Pages.clients) == 6  # six connections: one a reader, kept between pages
