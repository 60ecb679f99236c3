"""The dashboard keeps public pages a moment (dashboard/cache.py): a page is made once for
every reader within its max-age, never kept when it was asked with credentials or says it
is private, and a change made through the site empties it. An owner's own cards are never
served to anyone else from it."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.platform.settings import Settings
from arena.services.views.disclosure import Disclosure
from arena.store import matches as match_store
from arena.store.owners import add_owner
from dashboard import cache as cache_module
from dashboard.app import create_app
from dashboard.cache import SETTLED_SECONDS, STALE_SECONDS, PageCache, until_disclosed
from dashboard.server import freeze_heap
from tests.support.store import alices_running_table, play


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def site(clock: Clock, made: list[str], gate: asyncio.Event | None = None) -> PageCache:
    """A toy site behind the cache: it counts the pages it makes."""

    async def page(request: Request) -> Response:
        made.append(request.url.path)
        if gate is not None:
            await gate.wait()
        kind = request.path_params["kind"]
        headers = {
            "public": {"Cache-Control": "public, max-age=5"},
            "private": {"Cache-Control": "private, no-store"},
            "default": {},
        }.get(kind, {})
        status = 404 if kind == "missing" else 200
        if kind.startswith("big"):  # the same 100 kB whatever the query string
            return JSONResponse({"kind": kind, "filler": "x" * 100_000}, headers=headers)
        return JSONResponse({"kind": kind, "made": len(made)}, status, headers=headers)

    async def change(request: Request) -> Response:
        return JSONResponse({"changed": True})

    app = Starlette(routes=[Route("/{kind}", page), Route("/change", change, methods=["POST"])])
    return PageCache(app, default_seconds=1, clock=clock)


class Reader:
    """Requests to the cache on one event loop (pages made behind stale ones finish)."""

    def __init__(self, cache: PageCache) -> None:
        self.cache = cache
        self.runner = asyncio.Runner()

    def get(self, path: str, method: str = "GET", **headers: str) -> httpx.Response:
        async def fetch() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.cache)
            async with httpx.AsyncClient(transport=transport, base_url="http://s") as client:
                if path == "/change":
                    answer = await client.post(path)
                else:
                    answer = await client.request(method, path, headers=headers)
            await self.cache.settled()
            return answer

        return self.runner.run(fetch())


def test_a_public_page_is_made_once_within_its_max_age_then_again_behind_it() -> None:
    clock, made = Clock(), []
    reader = Reader(site(clock, made))
    first = reader.get("/public")
    clock.now += 4.9
    again = reader.get("/public")
    assert made == ["/public"] and again.json() == first.json()
    assert again.headers["cache-control"] == "public, max-age=5"
    clock.now += 0.2  # past its age: served once more while a fresh one is made
    assert reader.get("/public").json()["made"] == 1 and len(made) == 2
    assert reader.get("/public").json()["made"] == 2 and len(made) == 2
    clock.now += 5 + STALE_SECONDS  # too old to serve at all: made while the reader waits
    assert reader.get("/public").json()["made"] == 3


def test_a_page_that_says_nothing_is_kept_the_default_moment_and_says_so() -> None:
    clock, made = Clock(), []
    reader = Reader(site(clock, made))
    first = reader.get("/default")
    assert first.headers["cache-control"] == "public, max-age=1"
    assert reader.get("/default").json() == first.json() and len(made) == 1
    clock.now += 1.0 + STALE_SECONDS
    reader.get("/default")
    assert len(made) == 2


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/public", {"authorization": "Bearer owner-token"}),
        ("/public", {"cookie": "session=1"}),
        ("/private", {}),
        ("/missing", {}),
    ],
)
def test_what_credentials_asked_for_or_a_private_or_failed_page_is_never_kept(
    path: str, headers: dict[str, str]
) -> None:
    clock, made = Clock(), []
    reader = Reader(site(clock, made))
    for _ in range(3):
        reader.get(path, **headers)
    assert len(made) == 3


def test_a_cache_of_zero_seconds_keeps_nothing_whatever_a_page_says() -> None:
    made: list[str] = []
    cache = site(Clock(), made)
    cache.default_seconds = 0
    reader = Reader(cache)
    for _ in range(3):
        reader.get("/public")
    assert len(made) == 3


@pytest.mark.parametrize(
    "fresh", [{"cache-control": "no-cache"}, {"cache-control": "max-age=0"}, {"pragma": "no-cache"}]
)
def test_a_reader_who_asks_for_a_fresh_copy_gets_one_and_so_do_the_next(
    fresh: dict[str, str],
) -> None:
    made: list[str] = []
    reader = Reader(site(Clock(), made))
    reader.get("/public")
    assert reader.get("/public", **fresh).json()["made"] == 2
    assert reader.get("/public").json()["made"] == 2 and len(made) == 2


def test_a_change_through_the_site_empties_the_cache() -> None:
    clock, made = Clock(), []
    reader = Reader(site(clock, made))
    reader.get("/public")
    assert reader.get("/change").json() == {"changed": True}
    assert reader.get("/public").json()["made"] == 2


@pytest.mark.parametrize(("method", "path"), [("POST", "/nope"), ("DELETE", "/public")])
def test_a_request_that_changed_nothing_leaves_the_cache_as_it_is(method: str, path: str) -> None:
    """50 anonymous POST /nope a second once cut the pages served by a third: only a
    change the site made (a 2xx) empties the cache."""
    clock, made = Clock(), []
    reader = Reader(site(clock, made))
    reader.get("/public")
    for _ in range(50):
        assert reader.get(path, method=method).status_code >= 400
    assert reader.get("/public").json()["made"] == 1 and len(made) == 1


def test_made_up_query_strings_cost_a_key_each_not_a_page_each() -> None:
    """600 query strings on one page once added 92 MB: the page is kept once."""
    reader = Reader(site(Clock(), []))
    for number in range(600):
        assert reader.get(f"/big?junk={number}").status_code == 200
    assert 100_000 < reader.cache.kept_bytes < 110_000


def test_what_is_kept_never_grows_past_its_bound_in_bytes(monkeypatch) -> None:
    monkeypatch.setattr(cache_module, "MAX_KEPT_BYTES", 1_000_000)
    reader = Reader(site(Clock(), []))
    for number in range(50):  # 50 distinct pages of 100 kB
        reader.get(f"/big{number}")
        assert reader.cache.kept_bytes <= 1_000_000
    assert reader.get("/big49").status_code == 200 and reader.cache.kept_bytes > 800_000


def test_readers_of_a_page_being_made_wait_for_it_instead_of_making_it_again() -> None:
    made: list[str] = []

    async def readers() -> list[dict[str, Any]]:
        gate = asyncio.Event()
        cache = site(Clock(), made, gate)
        transport = httpx.ASGITransport(app=cache)
        async with httpx.AsyncClient(transport=transport, base_url="http://site") as client:
            asked = [asyncio.create_task(client.get("/public")) for _ in range(5)]
            while not made:  # the first is being made; the others ask meanwhile
                await asyncio.sleep(0)
            for _ in range(20):
                await asyncio.sleep(0)
            gate.set()
            return [(await answer).json() for answer in asked]

    answers = asyncio.run(readers())
    assert made == ["/public"] and all(answer == answers[0] for answer in answers)


@pytest.fixture
def cached(settings: Settings) -> tuple[TestClient, Callable[[], None], str, int, int]:
    """The real app with its page cache (the default settings), a round robin still
    running with one match recorded, alice's bot at one of its seats. (client, a function
    that ends the round robin, alice's token, the match, alice's seat)."""
    assert settings.page_cache_seconds > 0
    client = TestClient(create_app(replace(settings)))
    arena = client.app.state.platform
    _, token = arena.db.transaction(lambda s: add_owner(s, "alice"))
    first, seat, rest = alices_running_table(arena.db, seed="c")

    def end() -> None:
        for match in rest:
            claimed = match_store.claim(arena.db, match, "w")
            assert claimed is not None and match_store.record(arena.db, claimed, play(claimed), 1)

    return client, end, token, first, seat


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_owners_own_cards_are_never_served_to_anyone_else(cached) -> None:
    """The owner reads the log (their own hand) before and after anybody: each reader gets
    what they may read, whoever asked first."""
    client, _, token, match, seat = cached
    url = f"/api/v1/matches/{match}/log"
    owner = {"Authorization": f"Bearer {token}"}
    for order in ([owner, {}, owner, {}], [{}, owner, {}, owner]):
        for headers in order:
            got = client.get(url, headers=headers)
            hands = [deal["hands"][seat] for deal in got.json()["deals"]]
            if headers:
                assert got.headers["cache-control"] == "private, no-store"
                assert all(hand is not None for hand in hands)
            else:
                assert got.headers["cache-control"] == "public, max-age=1"
                assert got.json()["view"] == "public" and all(h is None for h in hands)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_full_log_is_kept_long_once_disclosed_and_pages_say_how_long(cached) -> None:
    client, end, _, match, _ = cached
    end()
    log = client.get(f"/api/v1/matches/{match}/log")
    assert log.json()["seed"] is not None
    assert log.headers["cache-control"] == f"public, max-age={SETTLED_SECONDS}"
    page = client.get(f"/matches/{match}")
    assert page.headers["cache-control"] == f"public, max-age={SETTLED_SECONDS}"
    for path in ("/", "/leaderboard", "/api/v1/tournaments/t"):
        assert client.get(path).headers["cache-control"] == "public, max-age=1", path
    assert "cache-control" not in client.get("/healthz").headers


def test_a_played_match_is_kept_up_to_its_disclosure_never_past_it() -> None:
    soon = datetime.now(UTC) + timedelta(seconds=42)
    kept = until_disclosed(Disclosure(False, "public from …", soon))["Cache-Control"]
    assert kept.startswith("public, max-age=") and 0 < int(kept.split("=")[1]) <= 42
    assert until_disclosed(Disclosure(False, "public when the tournament is over")) == {}
    due_now = until_disclosed(Disclosure(False, "public from …", datetime.now(UTC)))
    assert due_now == {}, "a log about to be disclosed is not kept"


def test_the_served_dashboard_leaves_its_start_up_out_of_the_collectors_walk(
    tmp_path,
) -> None:
    """What start-up made is frozen before serving: a full collection walks only what
    came after (it walked every module, route and schema, 90 ms a time, about once every
    150 requests)."""
    create_app(Settings(tmp_path, f"sqlite:///{tmp_path / 'arena.db'}", None))
    walked_before = len(gc.get_objects())
    try:
        freeze_heap()
        assert gc.get_freeze_count() >= walked_before // 2
        assert len(gc.get_objects()) < walked_before // 10
    finally:
        gc.unfreeze()  # this test process goes on collecting as before
