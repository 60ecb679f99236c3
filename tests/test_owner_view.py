"""An owner studies a match at once: with the owner's token the log and the replay show
the cards that owner's bots saw (their hands, their own plays), nothing more, while the
log is not public; without it, or with another owner's, the public view."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import select

from arena.base import aio
from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.referee import LocalSeat, Referee
from arena.referee.log import FailureRecord, ForfeitRecord, MatchLog
from arena.referee.views import owners_text_only, seat_view
from arena.services.views import owners as owner_queries
from arena.store import bots, logs, tournaments
from arena.store import matches as match_store
from arena.store.models import Owner, StoredLog
from arena.store.owners import add_owner
from sample_bots import SAMPLES
from tests.support.store import add_samples, alices_running_table, match_ids, play

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def played(app_and_token) -> tuple[Any, str, str, int, MatchLog, int]:
    """A round robin still running (its logs are not public) with one match recorded:
    alice's bot sits at one seat of it. (client, alice's token, bob's, the match, its
    full log, alice's seat)."""
    client, alice_token, arena = app_and_token
    _, bob_token = arena.db.transaction(lambda s: add_owner(s, "bob"))
    first, seat, _ = alices_running_table(arena.db, seed="o")
    with arena.db.read() as s:
        blob = s.scalars(select(StoredLog.data).where(StoredLog.match_id == first)).one()
    return client, alice_token, bob_token, first, MatchLog.from_dict(logs.decode(blob)), seat


def test_the_owner_reads_their_own_seat_at_once_and_nobody_else_does(played) -> None:
    client, alice, bob, match, full, seat = played
    url = f"/api/v1/matches/{match}/log"
    for headers in ({}, bearer(bob)):
        public = client.get(url, headers=headers).json()
        assert public["view"] == "public" and public["seed"] is None
        assert all(hand is None for deal in public["deals"] for hand in deal["hands"])
    own = client.get(url, headers=bearer(alice))
    assert own.headers["cache-control"] == "private, no-store"
    view = own.json()
    assert view["view"] == f"seat {seat}" and view["seed"] is None
    assert view["disclosure"].startswith(f"your seat {seat}: your own cards")
    for deal, dealt in zip(view["deals"], full.deals, strict=True):
        assert deal["hands"][seat] == list(dealt.hands[seat])
        assert all(hand is None for i, hand in enumerate(deal["hands"]) if i != seat)
        for step in deal["steps"]:
            action = step.get("action") or {}
            if action.get("do") == "play":
                assert (action["cards"] is not None) == (step["seat"] == seat)
    refused = client.get(url, headers=bearer("not-a-token"))
    assert refused.status_code == 401, "a token that does not work is refused, not ignored"


def test_the_owners_replay_shows_their_hand_at_each_of_their_decisions(played) -> None:
    client, alice, _, match, _, seat = played
    anyone = client.get(f"/api/v1/matches/{match}/replay").json()
    assert anyone["mine"] == [] and not anyone["public"]
    assert all(card is None for f in anyone["frames"] for hand in f["hands"] for card in hand)
    assert all(f["held"] is None for f in anyone["frames"])
    own = client.get(f"/api/v1/matches/{match}/replay", headers=bearer(alice)).json()
    assert own["mine"] == [seat] and own["names"][seat] == "mine v1"
    frames = own["frames"]
    assert all(None not in f["hands"][seat] for f in frames)
    assert all(
        card is None
        for f in frames
        for i, hand in enumerate(f["hands"])
        if i != seat
        for card in hand
    )
    decisions = [f for f in frames if f["seat"] == seat and f["kind"] != "end"]
    assert decisions and all(f["held"] is not None for f in decisions)
    assert all(f["held"] is None for f in frames if f["seat"] != seat)
    for group in (g for f in frames for g in f["pile_groups"]):
        assert (None in group["cards"]) == (group["author"] != seat) or not group["cards"]


def test_once_the_log_is_public_everyone_sees_every_card(played, app_and_token) -> None:
    client, alice, _, match, full, _ = played
    arena = app_and_token[2]
    for rest in match_ids(arena.db)[1:]:  # the round robin ends
        plan = match_store.claim(arena.db, rest, "w")
        assert plan is not None and match_store.record(arena.db, plan, play(plan), 1.0)
    for headers in ({}, bearer(alice)):
        log = client.get(f"/api/v1/matches/{match}/log", headers=headers).json()
        assert "view" not in log and log["seed"] == full.seed
        replay = client.get(f"/api/v1/matches/{match}/replay", headers=headers).json()
        assert replay["public"] and all(
            None not in hand for f in replay["frames"] for hand in f["hands"]
        )


def test_the_owner_pages_and_filters_their_matches_by_version_result_and_forfeit(
    app_and_token, monkeypatch
) -> None:
    client, alice, arena = app_and_token
    add_samples(arena.db)

    def alices_bot(session) -> None:
        alice_ = session.scalars(select(Owner).where(Owner.name == "alice")).one()
        bots.add_bot(session, "mine", BotKind.SAMPLE, "counter", owner_id=alice_.id)

    arena.db.transaction(alices_bot)
    field = ["mine", "random", "honest", "bluffer"]
    for name in ("first", "second"):
        arena.db.transaction(
            lambda s, name=name: tournaments.create(s, name, Ruleset.parse("classic"), field, 4, 3)
        )
        arena.db.transaction(lambda s, name=name: tournaments.start(s, name))
        for match in match_ids(arena.db):
            plan = match_store.claim(arena.db, match, "w")
            if plan is not None:
                assert match_store.record(arena.db, plan, play(plan), 1.0)
        if name == "first":
            arena.db.transaction(_second_version)

    def page(**params: Any) -> dict[str, Any]:
        got = client.get("/api/v1/owners/me/matches", params=params, headers=bearer(alice))
        assert got.status_code == 200, got.text
        return got.json()

    everything = page()
    assert everything["total"] == 6 and len(everything["items"]) == 6
    assert [i["version"] for i in page(bot="mine", version=2)["items"]] == [2, 2, 2]
    won, lost = page(result="won"), page(result="lost")
    assert won["total"] + lost["total"] == 6
    assert all(i["place"] == 1 for i in won["items"]) and all(i["place"] > 1 for i in lost["items"])
    assert page(forfeit=True)["total"] == 0 and page(forfeit=False)["total"] == 6
    assert page(tournament="second")["total"] == 3
    assert everything["total_exact"] and page(tournament="second")["total_exact"]
    monkeypatch.setattr(owner_queries, "COUNTED", 4)  # a long history: counted to 4
    capped = page(per_page=4)
    assert (capped["total"], capped["total_exact"], capped["has_next"]) == (4, False, True)
    assert (page(tournament="second")["total"], page(tournament="second")["total_exact"]) == (
        3,
        True,
    )
    monkeypatch.undo()
    first, last = page(per_page=4), page(per_page=4, page=2)
    assert first["has_next"] and not last["has_next"] and len(last["items"]) == 2
    assert {i["match"] for i in first["items"]}.isdisjoint(i["match"] for i in last["items"])
    assert (
        client.get(
            "/api/v1/owners/me/matches", params={"version": 2}, headers=bearer(alice)
        ).status_code
        == 400
    )
    assert (
        client.get(
            "/api/v1/owners/me/matches", params={"competition": "nowhere"}, headers=bearer(alice)
        ).status_code
        == 404
    )
    assert client.get("/api/v1/owners/me/matches").status_code == 401


def _second_version(session) -> None:
    alice = session.scalars(select(Owner).where(Owner.name == "alice")).one()
    bots.add_version(session, "mine", BotKind.SAMPLE, "random", owner_id=alice.id)


def test_a_forfeits_words_are_its_owners_alone_on_every_route(app_and_token) -> None:
    """A bot's exception text (its forfeit's words) was in the public match list, the
    match page, the log and the replay: only its owner reads it; everyone else, and the
    other bots at the table, read the kind of forfeit."""
    client, alice, arena = app_and_token
    _, bob = arena.db.transaction(lambda s: add_owner(s, "bob"))
    first, seat, rest = alices_running_table(
        arena.db, "f", changed=lambda log, seat: forfeited(log, seat, SECRET)
    )
    routes = [
        "/api/v1/matches",
        f"/api/v1/matches/{first}",
        f"/matches/{first}",
        f"/api/v1/matches/{first}/log",
        f"/api/v1/matches/{first}/replay",
        "/bots/mine",
    ]
    for settled in (False, True):
        for headers in ({}, bearer(bob)):
            for route in routes:
                answer = client.get(route, headers=headers)
                assert answer.status_code == 200, (route, answer.text)
                assert "alices-secret" not in answer.text, (route, settled)
        own = client.get(f"/api/v1/matches/{first}", headers=bearer(alice)).json()
        assert own["seats"][seat]["reason"] == SECRET and own["seats"][seat]["forfeit"]
        own_log = client.get(f"/api/v1/matches/{first}/log", headers=bearer(alice)).json()
        assert own_log["seats"][seat]["forfeit"]["detail"] == SECRET
        for match in rest:  # the round robin ends: every card public, the words still not
            plan = match_store.claim(arena.db, match, "w")
            assert plan is not None and match_store.record(arena.db, plan, play(plan), 1.0)
        rest = []


def test_the_other_bots_end_of_match_logs_keep_no_forfeits_words(database_url) -> None:
    log = forfeited(play_a_sample_match(), seat=0, words=SECRET)
    assert SECRET in json.dumps(seat_view(log, 0).to_dict())
    for other in range(1, log.players):
        assert "alices-secret" not in json.dumps(seat_view(log, other).to_dict())
    assert "alices-secret" not in json.dumps(owners_text_only(log, {1}).to_dict())


SECRET = "RuntimeError: alices-secret plan (bot.py, line 17, in act)"


def forfeited(log: MatchLog, seat: int, words: str) -> MatchLog:
    """``log`` with ``seat`` forfeiting, saying ``words``."""
    forfeit = ForfeitRecord(seat, "crashed", words, 0)
    failure = FailureRecord(0, None, "forfeit", words)
    seats = tuple(
        replace(s, forfeit=forfeit, failures=(*s.failures, failure)) if s.seat == seat else s
        for s in log.seats
    )
    return replace(log, seats=seats, forfeits=(forfeit,))


def play_a_sample_match() -> MatchLog:
    rules = Ruleset.parse("classic")
    names = ("counter", "random", "honest")
    seats = [LocalSeat(SAMPLES[n](ruleset=rules, players=3, seed=n), n) for n in names]
    return aio.run(Referee(rules, seats, seed=3).run())
