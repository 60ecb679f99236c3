"""Limits before work, tried by a hostile client: a body over the cap is refused before
it is read, submissions are rate-limited per owner, and an owner's endpoint never
points at the platform's own machine or network. Loopback traffic only."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
import uvicorn
from fastapi.testclient import TestClient

from arena.platform.settings import Settings
from arena.store.owners import add_owner
from dashboard.app import create_app
from dashboard.limits import MAX_BODY_BYTES
from dashboard.server import MAX_HEAD_BYTES
from dashboard.server import config as served
from tests.sandboxing import listeners
from tests.support.api import auth
from tests.support.waiting import HANG_SECONDS


@contextlib.contextmanager
def served_app(settings) -> Iterator[int]:
    """The dashboard behind a real uvicorn server on the loopback; its port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(settings)
    config = served(app, settings.trusted_proxies, host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + HANG_SECONDS
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(30)


def answer_of(conn: socket.socket) -> bytes:
    conn.settimeout(60)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_a_huge_body_is_refused_before_it_is_read(settings) -> None:
    """A 200 MB body without a token once cost the dashboard 600 MB before its 401."""
    with served_app(settings) as port:
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(
                b"POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 209715200\r\n\r\n"
            )
            head = answer_of(conn)  # answered with not one byte of the body sent
        assert head.startswith(b"HTTP/1.1 413"), head
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(
                b"POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n"
            )
            chunk = b"x" * 65536
            # past the cap, never the end; the server answers and closes at the cap, so
            # what is still on its way may be refused (the answer waits to be read)
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                for _ in range(MAX_BODY_BYTES // len(chunk) + 2):
                    conn.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            head = answer_of(conn)  # answered though the body never ended
        assert head.startswith(b"HTTP/1.1 413"), head


def test_a_body_within_the_cap_still_passes(app_and_token) -> None:
    client, token, _ = app_and_token
    source = "from arena.sdk import Bot\n" + "# filler\n" * 20_000
    answer = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": "long", "kind": "python", "source": source},
    )
    assert answer.status_code != 413, answer.text


def test_submissions_are_limited_per_owner(settings: Settings) -> None:
    environ = {"ARENA_SUBMISSIONS_PER_HOUR": "3", "ARENA_DATA_DIR": str(settings.data_dir)}
    client, token = _client(
        replace(settings, submission_rate=Settings.from_env(environ).submission_rate)
    )
    body = {"name": "fast", "kind": "sample", "target": "random"}
    assert client.post("/api/v1/bots", headers=auth(token), json=body).status_code == 202
    for _ in range(2):
        again = client.post(
            "/api/v1/bots/fast/versions",
            headers=auth(token),
            json={"kind": "sample", "target": "random"},
        )
        assert again.status_code == 202, again.text
    refused = client.post(
        "/api/v1/bots/fast/versions",
        headers=auth(token),
        json={"kind": "sample", "target": "honest"},
    )
    assert refused.status_code == 429, refused.text
    assert 1 <= int(refused.headers["Retry-After"]) <= 3600
    versions = client.get("/api/v1/bots/fast").json()["versions"]
    assert len(versions) == 3, "the refused submission stored nothing"


@pytest.mark.parametrize(
    "target",
    [
        "127.0.0.1:{port}",
        "[::1]:{port}",
        "localhost:{port}",
        "10.1.2.3:50051",
        "192.168.0.7:50051",
        "169.254.169.254:80",
        "0.0.0.0:{port}",
        "[::127.0.0.1]:{port}",
        "[::ffff:127.0.0.1]:{port}",
        "[64:ff9b::7f00:1]:{port}",
        "[64:ff9b:1::7f00:1]:{port}",
        "[2002:7f00:1::]:{port}",
        "[2001:0:4136:e378:8000:63bf:80ff:fffe]:{port}",
    ],  # fmt: skip
)
def test_an_owners_endpoint_on_this_machine_or_network_is_refused(
    app_and_token,
    target: str,
) -> None:
    client, token, _ = app_and_token
    with listeners((socket.AF_INET, ("127.0.0.1", 0)), (socket.AF_INET6, ("::1", 0))) as found:
        port = found[1].address[1] if target.startswith("[::1]") else found[0].address[1]
        body = {"name": "inside", "kind": "endpoint", "target": target.format(port=port)}
        answer = client.post("/api/v1/bots", headers=auth(token), json=body)
        assert answer.status_code == 400, answer.text
        assert "not a public address" in answer.json()["detail"]
        assert [listener.accepted for listener in found] == [0, 0]


def test_the_operator_may_allow_private_endpoints(settings: Settings) -> None:
    environ = {"ARENA_ALLOW_PRIVATE_ENDPOINTS": "1", "ARENA_DATA_DIR": str(settings.data_dir)}
    allowed = Settings.from_env(environ).allow_private_endpoints
    client, token = _client(replace(settings, allow_private_endpoints=allowed))
    with listeners((socket.AF_INET, ("127.0.0.1", 0))) as found:
        target = f"127.0.0.1:{found[0].address[1]}"
        answer = client.post(
            "/api/v1/bots",
            headers=auth(token),
            json={"name": "lan", "kind": "endpoint", "target": target},
        )
    assert answer.status_code == 202, answer.text  # queued for a worker's qualification


def _client(settings: Settings) -> tuple[TestClient, str]:
    """The app on ``settings`` (as the operator started it) and owner alice's token."""
    client = TestClient(create_app(settings))
    _, token = client.app.state.platform.db.transaction(lambda s: add_owner(s, "alice"))
    return client, token


def test_a_huge_header_is_refused_as_it_arrives(settings) -> None:
    """A 64 MB header was read whole (+146 MB) before any answer: past the bound on a
    request's head the connection is answered 431 and closed, the rest never read."""
    with served_app(settings) as port:
        with socket.create_connection(("127.0.0.1", port)) as conn:
            conn.sendall(b"GET /api/v1/bots HTTP/1.1\r\nHost: x\r\nX-Big: ")
            sent = 0
            with contextlib.suppress(ConnectionResetError, BrokenPipeError):
                while sent < 64 * 2**20:  # never ends: the server must stop it
                    conn.sendall(b"a" * 65536)
                    sent += 65536
            head = answer_of(conn)
        assert head.startswith(b"HTTP/1.1 431"), head
        assert sent < 64 * 2**20, "the server read a 64 MB header"
        with socket.create_connection(("127.0.0.1", port)) as conn:  # a normal one passes
            conn.sendall(
                b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Some: " + b"a" * 4096 + b"\r\n\r\n"
            )
            assert answer_of(conn).startswith(b"HTTP/1.1 200")
    assert MAX_HEAD_BYTES < 2**20


def _open_table(port: int, forwarded_for: str) -> int:
    with socket.create_connection(("127.0.0.1", port)) as conn:
        body = b'{"bots": ["sample:counter", "sample:random"]}'
        conn.sendall(
            b"POST /api/v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"X-Forwarded-For: {forwarded_for}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        return int(answer_of(conn).split(b" ")[1])


@pytest.mark.parametrize("trusted", [(), ("127.0.0.1",)])
def test_a_client_names_itself_only_behind_a_trusted_proxy(settings, trusted) -> None:
    """One client once opened every table of the site by naming itself anew in
    X-Forwarded-For: the header is believed only from the operator's proxies."""
    limited = replace(
        settings,
        trusted_proxies=trusted,
        table_limits=replace(settings.table_limits, per_person=1, live=4),
    )
    with served_app(limited) as port:
        answers = [_open_table(port, f"203.0.113.{i}") for i in range(3)]
    if trusted:  # behind a proxy: each address its own person
        assert answers == [201, 201, 201], answers
    else:  # the connection's address: one person, one table
        assert answers == [201, 429, 429], answers
