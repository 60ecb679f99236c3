"""A person's seat at a table of bots, through the API: refereed like a bot (illegal
actions counted, late answers struck, leaving forfeits), recorded unranked with a log
that replays exactly."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from arena.base.states import BotKind, TableStatus
from arena.engine.cards import RANK_OF
from arena.platform.settings import Settings, TableLimits
from arena.referee.log import MatchLog
from arena.referee.replay import replay
from arena.services import releases as release_service
from arena.store import bots
from arena.store.models import PlayedTable
from arena.store.owners import add_owner
from dashboard.app import create_app
from tests.support.tables import play_table, random_action

SAMPLES = ["sample:counter", "sample:random", "sample:honest"]


def _client(settings: Settings, limits: TableLimits | None = None) -> TestClient:
    app = create_app(replace(settings, table_limits=limits or TableLimits(), page_cache_seconds=0))
    return TestClient(app)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The site with its lifespan running (its tables play on its event loop)."""
    with _client(settings) as running:
        yield running


def _open(client: TestClient, **body: object) -> dict:
    answer = client.post("/api/v1/tables", json={"bots": SAMPLES, **body})
    assert answer.status_code == 201, answer.text
    return answer.json()


def _turn(client: TestClient, table_id: str) -> dict:
    state = client.get(f"/api/v1/tables/{table_id}?wait=30").json()
    assert state["status"] == "your_turn", state
    return state


def test_fifty_tables_played_with_random_legal_actions_each_log_replaying_exactly(
    client: TestClient,
) -> None:
    rng = random.Random(7)
    places = set()
    for number in range(50):
        table = _open(client, seat=number % 4)
        assert table["names"][table["seat"]] == "guest"
        state, actions = play_table(client, table["id"], rng)
        assert state["status"] == "done" and actions > 0
        assert state["forfeit"] is None
        places.add(state["place"])
        log = client.get(f"/api/v1/tables/{table['id']}/log")
        assert log.status_code == 200
        played = MatchLog.from_dict(log.json())
        assert played.match_id == table["match_id"]
        assert played.seats[table["seat"]].decisions == actions
        assert played.seats[table["seat"]].illegal == 0
        report = replay(played)
        assert report.ok, report.mismatches
    assert len(places) > 1  # a random player does not always finish in one place


def test_an_illegal_action_is_refused_with_its_reason_and_counted(client: TestClient) -> None:
    table = _open(client)
    state = _turn(client, table["id"])
    play = next(legal for legal in state["legal"] if legal["do"] == "play")
    wrong = {"do": "play", "cards": [_not_held(state)], "rank": play["ranks"][0], "count": 1}
    answer = client.post(f"/api/v1/tables/{table['id']}/act", json={"action": wrong})
    assert answer.status_code == 200
    after = answer.json()
    assert after["status"] == "your_turn"
    assert after["illegal"] == 1 and after["refused"]
    assert after["refused"] == "cards not in the hand"
    legal = random_action(after, random.Random(1))
    fine = client.post(f"/api/v1/tables/{table['id']}/act", json={"action": legal}).json()
    assert fine["refused"] is None and fine["illegal"] == 1


def test_one_person_and_one_bot_play_a_table_and_its_end_says_what_happened(
    client: TestClient,
) -> None:
    """A table of one person and one bot was refused ("1 players"); once over, the table
    said nothing of the illegal actions the log recorded, nor what happened."""
    table = _open(client, bots=["sample:counter"], seat=1)
    assert table["names"] == ["sample:counter", "guest"]
    for _ in range(2):
        state = _turn(client, table["id"])
        play = next(legal for legal in state["legal"] if legal["do"] == "play")
        wrong = {"do": "play", "cards": [_not_held(state)], "rank": play["ranks"][0], "count": 1}
        refused = client.post(f"/api/v1/tables/{table['id']}/act", json={"action": wrong})
        assert refused.json()["refused"] == "cards not in the hand"
    state, _ = play_table(client, table["id"], random.Random(3))
    assert state["status"] == "done" and state["place"] in (1, 2)
    assert state["illegal"] == 2 and state["deals"] >= 1
    assert state["history"] and len(state["said"]) == len(state["history"])
    assert any("guest" in line for line in state["said"])
    page = client.get(f"/tables/{table['id']}").text
    assert f"you placed {('1st', '2nd')[state['place'] - 1]} of 2" in page


def _not_held(state: dict) -> str:
    """A card of the game that is not in the person's hand."""
    return next(card for card in RANK_OF if card not in state["observation"]["hand"])


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ({"do": "play", "cards": ["XX"], "rank": "7", "count": 1}, "no such card"),
        ({"do": "play", "cards": ["7C"], "rank": "eleven", "count": 1}, "no such rank"),
        ({"do": "play", "cards": ["7C"] * 65, "rank": "7"}, "1 to 64 cards"),
        ({"do": "play", "cards": ["7C"], "rank": "7", "count": 10**9}, "claims 1 to 64"),
        ({"do": "quartets", "ranks": ["Z" * 50]}, "quartets names ranks"),
        ({"do": {}}, "unknown action"),
        ({"do": ["play"]}, "unknown action"),
    ],
)
def test_what_is_not_the_games_words_is_refused_before_it_is_counted_or_kept(
    client: TestClient, action: dict, said: str
) -> None:
    """A guest once wrote 15 MB into the database in 16 s: each illegal action was kept
    whole, whatever strings its cards were. Only the game's cards and ranks are counted
    (and kept); the rest is a 400 that leaves the table as it was."""
    table = _open(client)
    _turn(client, table["id"])
    answer = client.post(f"/api/v1/tables/{table['id']}/act", json={"action": action})
    assert answer.status_code == 400 and said in answer.json()["detail"], answer.text
    assert client.get(f"/api/v1/tables/{table['id']}").json()["illegal"] == 0


def test_a_guests_table_stores_a_bounded_log_whatever_the_guest_sends(
    client: TestClient,
) -> None:
    table = _open(client)
    big = client.post(
        f"/api/v1/tables/{table['id']}/act",
        json={"action": {"do": "play", "cards": ["7C" * 400_000], "rank": "7"}},
    )
    assert big.status_code == 413, "a body over the tables' cap is never read"
    state = _turn(client, table["id"])
    while state["status"] == "your_turn":  # illegal actions until the rules end it
        play = next(legal for legal in state["legal"] if legal["do"] == "play")
        wrong = {"do": "play", "cards": [_not_held(state)] * 64, "rank": play["ranks"][0]}
        answer = client.post(f"/api/v1/tables/{table['id']}/act", json={"action": wrong})
        state = answer.json() if answer.status_code == 200 else state
        if answer.status_code == 409:
            break
        if state["status"] != "your_turn":
            state = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
    client.post(f"/api/v1/tables/{table['id']}/leave")
    over = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
    while over["status"] not in ("done", "abandoned"):
        over = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
    arena = client.app.state.platform  # type: ignore[attr-defined]
    with arena.db.read() as session:
        kept = session.get(PlayedTable, table["id"])
        assert kept is not None and kept.log is not None
        assert len(kept.log) < 64 * 1024, len(kept.log)


def test_what_is_not_an_action_or_not_a_turn_is_refused_without_counting(
    client: TestClient,
) -> None:
    table = _open(client, seat=1)
    _turn(client, table["id"])
    bad = client.post(f"/api/v1/tables/{table['id']}/act", json={"action": {"do": "fold"}})
    assert bad.status_code == 400 and "unknown action" in bad.json()["detail"]
    state = client.get(f"/api/v1/tables/{table['id']}").json()
    assert state["illegal"] == 0
    client.post(f"/api/v1/tables/{table['id']}/leave")
    over = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
    while over["status"] not in ("done", "abandoned"):
        over = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
    late = client.post(f"/api/v1/tables/{table['id']}/act", json={"action": {"do": "pass"}})
    assert late.status_code == 409
    assert client.get("/api/v1/tables/no-such-table-here").status_code == 404


def test_a_person_who_leaves_forfeits_and_the_bots_play_the_match_out(
    client: TestClient,
) -> None:
    table = _open(client)
    _turn(client, table["id"])
    assert client.post(f"/api/v1/tables/{table['id']}/leave").status_code == 204
    state = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
    while state["status"] != "done":
        state = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
    assert state["forfeit"] == "left"
    assert state["ranking"][-1] == ["guest"]
    played = MatchLog.from_dict(client.get(f"/api/v1/tables/{table['id']}/log").json())
    assert played.seats[0].forfeit is not None and played.seats[0].forfeit.kind == "left"
    assert replay(played).ok


def test_a_silent_person_is_struck_then_forfeits(settings: Settings) -> None:
    quick = TableLimits(deadline=0.05, time_bank=0.0)
    with _client(settings, quick) as client:
        table = _open(client)
        state = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
        while state["status"] != "done":  # never answering
            state = client.get(f"/api/v1/tables/{table['id']}?wait=30").json()
        assert state["forfeit"] == "strikes"
        played = MatchLog.from_dict(client.get(f"/api/v1/tables/{table['id']}/log").json())
        assert played.seats[0].strikes == 3


def test_an_owner_sits_under_their_name_and_may_refuse_people(client: TestClient) -> None:
    arena = client.app.state.platform  # type: ignore[attr-defined]
    owner, token = arena.db.transaction(lambda s: add_owner(s, "carol"))
    arena.db.transaction(
        lambda s: bots.add_bot(s, "shy", BotKind.SAMPLE, "counter", owner_id=owner.id)
    )
    auth = {"Authorization": f"Bearer {token}"}
    table = client.post(
        "/api/v1/tables", json={"bots": ["shy", "sample:random"]}, headers=auth
    ).json()
    assert table["names"] == ["carol", "shy v1", "sample:random"]
    client.post(f"/api/v1/tables/{table['id']}/leave")
    refused = client.patch("/api/v1/bots/shy/consent", json={"people": False}, headers=auth)
    assert refused.status_code == 200 and refused.json()["people_may_play"] is False
    again = client.post("/api/v1/tables", json={"bots": ["shy", "sample:random"]})
    assert again.status_code == 403 and "does not let people" in again.json()["detail"]
    others = client.patch("/api/v1/bots/shy/consent", json={"people": True})
    assert others.status_code == 401
    with arena.db.read() as session:
        assert release_service.find(session, "shy").bot.people_may_play is False


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"bots": ["sample:nope"]}, "no sample bot"),
        ({"bots": ["nobody"]}, "no bot named"),
        ({"bots": SAMPLES, "rules": "house"}, "unknown preset"),
        ({"bots": SAMPLES, "seat": 5}, "your seat is 0 to 3"),
    ],
)
def test_a_table_that_cannot_be_is_refused_with_the_reason(
    client: TestClient, body: dict, said: str
) -> None:
    answer = client.post("/api/v1/tables", json=body)
    assert answer.status_code == 400 and said in answer.json()["detail"]


def test_the_site_plays_at_most_its_tables_at_once(settings: Settings) -> None:
    with _client(settings, TableLimits(live=1)) as client:
        first = _open(client)
        full = client.post("/api/v1/tables", json={"bots": SAMPLES})
        assert full.status_code == 503 and "as many as this site allows" in full.json()["detail"]
        client.post(f"/api/v1/tables/{first['id']}/leave")
        state = client.get(f"/api/v1/tables/{first['id']}?wait=30").json()
        while state["status"] != "done":
            state = client.get(f"/api/v1/tables/{first['id']}?wait=30").json()
        assert client.post("/api/v1/tables", json={"bots": SAMPLES}).status_code == 201


def test_a_table_the_site_stopped_under_is_abandoned_never_lost(settings: Settings) -> None:
    with _client(settings) as client:
        table = _open(client)
        _turn(client, table["id"])
    with _client(settings) as again:  # the site stopped with the table in play
        state = again.get(f"/api/v1/tables/{table['id']}").json()
        assert state["status"] == "abandoned"
        arena = again.app.state.platform  # type: ignore[attr-defined]
        with arena.db.read() as session:
            kept = session.get(PlayedTable, table["id"])
            assert kept is not None and kept.status is TableStatus.ABANDONED


@pytest.mark.sandbox
@pytest.mark.processes
def test_an_uploaded_bot_sits_at_a_persons_table_in_its_own_sandbox(settings: Settings) -> None:
    from arena.store.owners import add_owner as owner_named
    from tests.sandboxing import PLAIN_BOT
    from tests.support.api import auth
    from tests.support.cli import run_queued_jobs

    with _client(settings) as client:
        arena = client.app.state.platform  # type: ignore[attr-defined]
        _, token = arena.db.transaction(lambda s: owner_named(s, "uploader"))
        submitted = client.post(
            "/api/v1/bots",
            headers=auth(token),
            json={"name": "up", "kind": "python", "source": PLAIN_BOT.read_text()},
        )
        assert submitted.status_code == 202, submitted.text
        run_queued_jobs(arena)
        table = _open(client, bots=["up", "sample:random"])
        assert table["names"] == ["guest", "up v1", "sample:random"]
        state, _ = play_table(client, table["id"], random.Random(3))
        assert state["status"] == "done"
        played = MatchLog.from_dict(client.get(f"/api/v1/tables/{table['id']}/log").json())
        assert played.seats[1].decisions > 0 and played.seats[1].forfeit is None
        assert replay(played).ok


def test_one_person_plays_at_most_their_tables_at_once(settings: Settings) -> None:
    with _client(settings, TableLimits(per_person=1)) as client:
        first = _open(client)
        again = client.post("/api/v1/tables", json={"bots": SAMPLES})
        assert again.status_code == 429 and "as many as one person may" in again.json()["detail"]
        arena = client.app.state.platform  # type: ignore[attr-defined]
        _, token = arena.db.transaction(lambda s: add_owner(s, "dora"))
        theirs = client.post(
            "/api/v1/tables", json={"bots": SAMPLES}, headers={"Authorization": f"Bearer {token}"}
        )
        assert theirs.status_code == 201, "another person still sits down"
        client.post(f"/api/v1/tables/{first['id']}/leave")
        state = client.get(f"/api/v1/tables/{first['id']}?wait=30").json()
        while state["status"] != "done":
            state = client.get(f"/api/v1/tables/{first['id']}?wait=30").json()
        assert client.post("/api/v1/tables", json={"bots": SAMPLES}).status_code == 201


def test_the_seat_choice_says_who_deals_and_who_leads_under_each_rules(
    client: TestClient,
) -> None:
    """Seat 1 "led the first deal" on /play while it deals and, under the classic rules,
    the seat on its left leads."""
    import json
    import re

    page = client.get("/play").text
    leads = json.loads(re.search(r"data-leads='([^']+)'", page).group(1))
    assert leads == {"classic": 1, "pagat": 1, "russian": 0}
    assert "1 (deals first)</option>" in page and "2 (leads the first deal)</option>" in page
