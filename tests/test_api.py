"""The API and pages with a real database: reads, owner tokens, clear 4xx, escaping."""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from arena.base.states import BotKind
from arena.engine import Ruleset
from arena.platform.settings import Settings
from arena.referee.log import ForfeitRecord
from arena.services.views import bots as bot_queries
from arena.store import bots, owners, tournaments
from arena.store import matches as match_store
from arena.store.owners import add_owner
from dashboard.app import create_app
from tests.sandboxing import PLAIN_BOT
from tests.support.api import auth, played_tournament
from tests.support.cli import ROOT, run_queued_jobs
from tests.support.store import SAMPLES, add_samples, match_ids, play, played_competition

RULES = Ruleset.parse("classic")
XSS = "<img src=x onerror=\"alert('x')\">"


def test_a_failed_match_ends_but_is_not_counted_as_played(app_and_token) -> None:
    """A match the platform gave up (its attempts spent) has ended, not played: the
    status says both, and the pages show it among the failed, not the played."""
    client, _, arena = app_and_token
    add_samples(arena.db)
    arena.db.transaction(lambda s: tournaments.create(s, "cup", RULES, SAMPLES, 4, 3))
    arena.start_tournament("cup")
    first, *rest = match_ids(arena.db)
    plan = match_store.claim(arena.db, first, "w")
    assert plan is not None
    assert match_store.give_back(arena.db, plan, "lost", attempts=1)[0].value == "failed"
    for match_id in rest:
        plan = match_store.claim(arena.db, match_id, "w")
        assert plan is not None and match_store.record(arena.db, plan, play(plan), 1.0)
    counts = client.get("/api/v1/tournaments/cup").json()["matches"]
    assert (counts["done"], counts["failed"], counts["ended"], counts["total"]) == (2, 1, 3, 3)
    assert "2 / 3 (1 failed)" in client.get("/").text


def test_the_match_list_pages_on_from_the_last_match_it_showed(app_and_token) -> None:
    """Keyset paging: each page's ``next_before`` leads to the matches older than its
    last, the pages together the list's matches once each, newest first (as the page
    numbers give them), and the HTML page's "older" link follows the same key."""
    client, _, arena = app_and_token
    add_samples(arena.db)
    arena.db.transaction(lambda s: tournaments.create(s, "cup", RULES, SAMPLES, 4, 7))
    arena.start_tournament("cup")
    walked, before = [], None
    while True:
        params = {"tournament": "cup", "per_page": 3, **({"before": before} if before else {})}
        page = client.get("/api/v1/matches", params=params).json()
        walked.append([m["id"] for m in page["items"]])
        before = page["next_before"]
        assert page["has_next"] is (before is not None)
        if before is None:
            break
    numbered = [
        [m["id"] for m in client.get("/api/v1/matches", params={
            "tournament": "cup", "per_page": 3, "page": n}).json()["items"]]
        for n in (1, 2, 3)
    ]  # fmt: skip
    assert walked == numbered and [len(ids) for ids in walked] == [3, 3, 1]
    flat = [m for ids in walked for m in ids]
    assert flat == sorted(flat, reverse=True) and len(set(flat)) == 7
    first = client.get("/matches", params={"tournament": "cup"}).text
    assert "older" not in first  # 7 matches: one page of 50
    html = client.get("/matches", params={"tournament": "cup", "before": walked[0][-1]}).text
    assert all(f'href="/matches/{m}"' in html for m in flat[3:])
    assert f'href="/matches/{flat[0]}"' not in html and "newest" in html


def test_reads_after_a_played_tournament(app_and_token) -> None:
    client, token, arena = app_and_token
    played_tournament(client, token, arena, private=True)
    detail = client.get("/api/v1/tournaments/cup").json()
    assert detail["status"] == "done" and detail["matches"]["done"] == 6
    board = client.get("/api/v1/tournaments/cup/leaderboard").json()
    assert [row["rank"] for row in board] == [1, 2, 3, 4]
    assert all(row["games"] == 6 and 0 <= row["bluff_rate"] <= 1 for row in board)
    # the rows the live page swaps in are the page's own, drawn by one template
    rows = client.get("/tournaments/cup/leaderboard")
    assert rows.status_code == 200 and rows.text.count("<tr>") == 4
    page_body = client.get("/tournaments/cup").text
    assert rows.text.strip() in page_body
    assert [rows.text.index(f'href="/bots/{row["bot"]}"') for row in board] == sorted(
        rows.text.index(f'href="/bots/{row["bot"]}"') for row in board
    )
    assert client.get("/tournaments/nope/leaderboard").status_code == 404
    page = client.get("/api/v1/matches", params={"tournament": "cup", "per_page": 4}).json()
    assert len(page["items"]) == 4 and page["has_next"] is True
    second = client.get("/api/v1/matches", params={"tournament": "cup", "per_page": 4, "page": 2})
    assert len(second.json()["items"]) == 2 and second.json()["has_next"] is False
    first = page["items"][0]
    assert client.get(f"/api/v1/matches/{first['id']}").json() == first
    log = client.get(f"/api/v1/matches/{first['id']}/log")
    assert log.headers["content-disposition"] == f'attachment; filename="match-{first["id"]}.json"'
    assert log.json()["format"] == "arena.match-log/1"
    by_bot = client.get("/api/v1/matches", params={"bot": "counter", "status": "done"}).json()
    assert all(any(s["bot"] == "counter" for s in m["seats"]) for m in by_bot["items"])
    bot = client.get("/api/v1/bots/counter").json()
    assert bot["versions"][0]["number"] == 1
    page = client.get("/tournaments/cup").text
    assert "<th>challenges right</th>" in page and "<th>beliefs right</th>" in page
    assert "<th>right</th>" not in page, "two columns of one name"
    for url in (
        "/",
        "/tournaments/cup",
        "/bots/counter",
        "/matches",
        f"/matches/{first['id']}",
        "/workers",
    ):
        assert client.get(url).status_code == 200, url


def test_writes_need_a_valid_token(app_and_token) -> None:
    client, token, arena = app_and_token
    body = {"name": "mine", "kind": "sample", "target": "random"}
    assert client.post("/api/v1/bots", json=body).status_code == 401
    assert client.post("/api/v1/bots", json=body, headers=auth("wrong")).status_code == 401
    created = client.post("/api/v1/bots", json=body, headers=auth(token))
    assert created.status_code == 202, created.text
    assert created.json()["status"] == "pending" and created.json()["version"] == 1
    assert created.json()["accepted"] is False
    run_queued_jobs(arena)
    [first] = client.get("/api/v1/bots/mine").json()["versions"]
    assert first["status"] == "ready" and "qualified" in first["reason"]
    again = client.post("/api/v1/bots", json=body, headers=auth(token))
    assert again.status_code == 409
    assert client.post("/api/v1/tournaments/x/start").status_code == 401
    version = client.post(
        "/api/v1/bots/mine/versions",
        headers=auth(token),
        json={"kind": "sample", "target": "counter"},
    )
    assert version.status_code == 202 and version.json()["version"] == 2
    run_queued_jobs(arena)
    versions = client.get("/api/v1/bots/mine").json()["versions"]
    assert [v["active"] for v in versions] == [False, True], "the old version is retired"
    assert [v["status"] for v in versions] == ["ready", "ready"]
    other = client.app.state.platform.db.transaction(lambda s: add_owner(s, "bob"))[1]
    stolen = client.post(
        "/api/v1/bots/mine/versions",
        headers=auth(other),
        json={"kind": "sample", "target": "random"},
    )
    assert stolen.status_code == 403


@pytest.mark.parametrize(
    ("url", "body", "code", "message"),
    [
        ("/api/v1/bots", {"name": "x", "kind": "sample", "target": "nope"}, 400, "no sample bot"),
        ("/api/v1/bots", {"name": "x", "kind": "python", "source": ""}, 400, "needs its source"),
        (
            "/api/v1/bots",
            {"name": "x", "kind": "endpoint", "target": "nowhere"},
            400,
            "is not HOST:PORT",
        ),
        ("/api/v1/bots", {"name": "", "kind": "sample", "target": "random"}, 422, "name"),
        (
            "/api/v1/bots",
            {"name": "x", "kind": "sample", "target": "random", "max_matches": 4},
            400,
            "only an endpoint serves several matches at once",
        ),
        (
            "/api/v1/bots",
            {"name": "x", "kind": "endpoint", "target": "h:1", "max_matches": 0},
            422,
            "max_matches",
        ),
        ("/api/v1/tournaments", {"name": "t", "bots": ["a", "b"]}, 400, "no bot named 'a'"),
        (
            "/api/v1/tournaments",
            {
                "name": "t",
                "bots": ["random", "honest"],
                "table_size": 2,
                "rules": {"preset": "classic", "options": {"deck": 40}},
            },
            400,
            "option deck",
        ),
        ("/api/v1/tournaments/none/start", None, 404, "no tournament named 'none'"),
        ("/api/v1/bots/none/versions", {"kind": "sample", "target": "random"}, 404, "no bot"),
        (
            "/api/v1/bots/random/versions",
            {"kind": "sample", "target": "honest"},
            403,
            "only the platform's operator",
        ),
        ("/api/v1/bots", {"name": "a,b", "kind": "sample", "target": "random"}, 422, "pattern"),
        ("/api/v1/bots", {"name": "random", "kind": "sample", "target": "honest"}, 409, "exists"),
    ],
)
def test_bad_input_gets_a_clear_4xx(app_and_token, url, body, code, message) -> None:
    client, token, arena = app_and_token
    add_samples(arena.db, ["random", "honest"])
    response = client.post(url, json=body, headers=auth(token))
    assert response.status_code == code, response.text
    assert message in response.text


def test_a_refusal_says_which_it_is_beside_its_words(app_and_token) -> None:
    """The sentence's key travels with a refusal of the store (arena.base.words)."""
    client, token, arena = app_and_token
    missing = client.post("/api/v1/tournaments/none/start", headers=auth(token))
    assert missing.json() == {"detail": "no tournament named 'none'", "code": "name.missing"}
    asked = {"name": "t", "bots": ["a", "b"]}
    made = client.post("/api/v1/tournaments", json=asked, headers=auth(token))
    assert (made.status_code, made.json()["code"]) == (400, "name.missing")


def test_html_cannot_name_a_bot_and_text_a_bot_controls_is_shown_escaped(
    app_and_token,
) -> None:
    """Names are letters, digits, '.', '_' and '-'; what a bot's own words put in a
    forfeit reason (a quoted gRPC status) never reaches a page (it is its owner's)."""
    client, token, arena = app_and_token
    refused = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": XSS, "kind": "sample", "target": "honest"},
    )
    assert refused.status_code == 422 and "pattern" in refused.text
    add_samples(arena.db, ["random", "honest"])
    made = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={"name": "escape", "bots": ["honest", "random"], "table_size": 2, "games": 1},
    )
    assert made.status_code == 201
    client.post("/api/v1/tournaments/escape/start", headers=auth(token))
    [match_id] = match_ids(arena.db)
    plan = match_store.claim(arena.db, match_id, "test")
    log = play(plan)
    said = ForfeitRecord(0, "crashed", f"the bot said {XSS}", 0)
    log = replace(log, seats=(replace(log.seats[0], forfeit=said), *log.seats[1:]))
    match_store.record(arena.db, plan, log, 1.0)
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200
    assert XSS not in page.text and "onerror" not in page.text, "a forfeit's words are its owner's"
    bot_page = client.get(f"/bots/{plan.seats[0].name.split()[0]}")
    assert bot_page.status_code == 200 and XSS not in bot_page.text
    assert "onerror" not in bot_page.text, "a forfeit's words are its owner's on the bot page"


BROKEN = """
from arena.sdk import Bot


class Broken(Bot):
    def act(self, observation):
        raise ValueError("oops")
"""

#: a plain, truthful legal player (the one the sandbox attacks are built on)
TRUTHFUL = PLAIN_BOT.read_text()


def test_an_uploaded_bot_is_qualified_and_a_broken_version_is_rejected(app_and_token) -> None:
    client, token, arena = app_and_token
    good = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": "up", "kind": "python", "source": TRUTHFUL},
    )
    assert good.status_code == 202 and good.json()["status"] == "pending", good.text
    run_queued_jobs(arena)
    bad = client.post(
        "/api/v1/bots/up/versions", headers=auth(token), json={"kind": "python", "source": BROKEN}
    )
    assert bad.status_code == 202 and bad.json()["status"] == "pending"
    run_queued_jobs(arena)
    versions = client.get("/api/v1/bots/up").json()["versions"]
    assert [(v["status"], v["active"]) for v in versions] == [("ready", True), ("rejected", False)]
    # to anyone: the kind of failure, never what the bot printed (its source lines)
    assert versions[1]["reason"] == "forfeited its qualification match: crashed"
    assert versions[1]["detail"] is None
    page = client.get("/bots/up").text
    assert "forfeited its qualification match: crashed" in page
    assert "oops" not in page and "Traceback" not in page and "ValueError" not in page
    # to its owner: the traceback
    owners = client.get("/api/v1/bots/up", headers=auth(token)).json()["versions"]
    assert "ValueError: oops" in owners[1]["detail"], owners[1]
    _, stranger = arena.db.transaction(lambda s: add_owner(s, "stranger"))
    theirs = client.get("/api/v1/bots/up", headers=auth(stranger)).json()["versions"]
    assert theirs[1]["detail"] is None, "another owner reads no output"


def test_names_are_unique_whatever_their_case(app_and_token) -> None:
    client, token, _ = app_and_token
    first = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": "alicebot", "kind": "python", "source": TRUTHFUL},
    )
    assert first.status_code == 202, first.text
    again = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": "ALICEBOT", "kind": "python", "source": TRUTHFUL},
    )
    assert again.status_code == 409 and "alicebot" in again.text, again.text


def test_an_owner_sees_itself_rotates_and_revokes_its_token(app_and_token) -> None:
    client, token, arena = app_and_token
    me = client.get("/api/v1/owners/me", headers=auth(token))
    assert me.status_code == 200 and me.json()["token"] == "active"
    assert token not in me.text, "a token is never shown back"
    rotated = client.post("/api/v1/owners/me/token", headers=auth(token))
    assert rotated.status_code == 200
    fresh = rotated.json()["token"]
    assert fresh != token
    assert client.get("/api/v1/owners/me", headers=auth(token)).status_code == 401
    assert client.get("/api/v1/owners/me", headers=auth(fresh)).status_code == 200
    assert client.delete("/api/v1/owners/me/token", headers=auth(fresh)).status_code == 204
    assert client.get("/api/v1/owners/me", headers=auth(fresh)).status_code == 401
    with arena.db.read() as s:
        [owner] = owners.all_owners(s)
        assert owners.describe(s, owner)["token"] == "revoked"


def test_a_ladder_is_created_and_started_through_the_api(app_and_token) -> None:
    client, token, arena = app_and_token
    add_samples(arena.db, ["random", "honest", "counter"])
    made = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={
            "name": "climb",
            "bots": ["random", "honest", "counter"],
            "table_size": 2,
            "games": 2,
            "format": "ladder",
            "reveal_after": 60,
        },
    )
    assert made.status_code == 201, made.text
    started = client.post("/api/v1/tournaments/climb/start", headers=auth(token))
    assert started.status_code == 200 and started.json()["queued"] == 2, "two tables in play"
    with arena.db.read() as s:
        ladder = tournaments.get(s, "climb")
        assert ladder.format == "ladder" and ladder.reveal_delay == 60
    bad = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={"name": "x", "bots": ["random", "honest"], "format": "elimination"},
    )
    assert bad.status_code == 422 and "ladder" in bad.text


def test_pages_show_rules_as_people_write_them(app_and_token) -> None:
    client, token, arena = app_and_token
    add_samples(arena.db, ["random", "honest"])
    made = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={
            "name": "short",
            "bots": ["random", "honest"],
            "table_size": 2,
            "games": 1,
            "rules": {"preset": "classic", "options": {"deals": 2}},
        },
    )
    assert made.status_code == 201, made.text
    for url in ("/", "/tournaments/short"):
        page = client.get(url).text
        assert "classic(deals=2)" in page and "{" not in page.split("<main")[1].split("</main")[0]


def test_a_global_leaderboard_and_a_bot_index(app_and_token) -> None:
    """/leaderboard is the default competition's: one field, not the best of many."""
    client, token, arena = app_and_token
    played_tournament(client, token, arena)  # another field: it never shows there
    played_competition(arena.db, "main", SAMPLES)
    arena.db.transaction(lambda s: bots.add_bot(s, "newcomer", BotKind.SAMPLE, "random"))
    with arena.db.read() as s:
        rows = bot_queries.global_leaderboard(s)
    rated = [r for r in rows if r["tournament"]]
    assert [r["rank"] for r in rated] == list(range(1, len(rated) + 1)) and len(rated) >= 2
    scores = [r["score"] for r in rated]
    assert scores == sorted(scores, reverse=True)
    assert rows[-1] == {"bot": "newcomer", "version": None, "tournament": None, "games": 0}
    assert {r["tournament"] for r in rated} == {"main-season-1"}
    board = client.get("/leaderboard")
    assert board.status_code == 200
    assert board.text.index(rated[0]["bot"]) < board.text.index("not rated yet")
    index = client.get("/bots")
    assert index.status_code == 200 and "newcomer" in index.text
    assert f"<td>{rated[0]['rank']}</td><td>{rated[0]['score']:.2f}</td>" in index.text
    assert "<td>operator</td>" in index.text and "not rated yet" in index.text
    assert all(f'href="/bots/{r["bot"]}"' in index.text for r in rated)


def test_a_bot_s_output_in_a_match_is_served_to_its_owner_only(app_and_token) -> None:
    client, token, arena = app_and_token
    talker = (ROOT / "tests" / "sandbox_bots" / "talker.py").read_text()
    submitted = client.post(
        "/api/v1/bots",
        headers=auth(token),
        json={"name": "talker", "kind": "python", "source": talker},
    )
    assert submitted.status_code == 202, submitted.text
    run_queued_jobs(arena)
    add_samples(arena.db)
    created = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={"name": "talk", "bots": ["talker", *SAMPLES[:3]], "table_size": 4, "games": 2},
    )
    assert created.status_code == 201, created.text
    client.post("/api/v1/tournaments/talk/start", headers=auth(token))
    run_queued_jobs(arena)
    mine = client.get("/api/v1/owners/me/seats", headers=auth(token)).json()
    qualified_in = ("talker", "platform.qualification")
    assert [(s["bot"], s["tournament"]) for s in mine] == [("talker", "talk")] * 2 + [qualified_in]
    assert all("talker: " in s["output"] and s["place"] for s in mine)
    _, other = arena.db.transaction(lambda s: owners.add_owner(s, "bob"))
    assert client.get("/api/v1/owners/me/seats", headers=auth(other)).json() == []
    assert client.get("/api/v1/owners/me/seats").status_code == 401
    for match in {s["match"] for s in mine}:
        assert "talker: " not in client.get(f"/api/v1/matches/{match}").text
        assert "talker: " not in client.get(f"/api/v1/matches/{match}/log").text


def test_a_redis_that_is_down_is_a_503_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    settings = Settings(
        tmp_path, f"sqlite:///{tmp_path / 'arena.db'}", f"redis://127.0.0.1:{closed}/0"
    )
    client = TestClient(create_app(settings))
    arena = client.app.state.platform
    _, token = arena.db.transaction(lambda s: add_owner(s, "alice"))
    add_samples(arena.db)
    made = client.post(
        "/api/v1/tournaments",
        headers=auth(token),
        json={"name": "cup", "bots": SAMPLES, "table_size": 4, "games": 2},
    )
    assert made.status_code == 201, made.text
    started = client.post("/api/v1/tournaments/cup/start", headers=auth(token))
    assert started.status_code == 503
    assert started.json()["detail"].startswith("Redis is not reachable")


def test_every_page_writes_a_moment_one_way(app_and_token) -> None:
    """One date format across pages: ``2026-12-01 11:02 UTC`` in a ``<time>`` element
    that keeps the exact moment."""
    import re

    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=4)
    for url in ("/", "/bots/counter", "/matches", "/matches?bot=counter"):
        page = client.get(url).text
        moments = re.findall(r'<time datetime="([^"]+)">([^<]*)</time>', page)
        assert moments, url
        for exact, shown in moments:
            assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", shown), (url, shown)
            assert exact.replace("T", " ").startswith(shown[:16]), (url, exact, shown)
        text = re.sub(r"<[^>]+>", " ", page)
        assert not re.search(r"\d\dT\d\d:\d\d", text), f"{url}: an ISO moment shown as it is"


def test_places_read_one_way_and_each_seat_names_its_version(app_and_token) -> None:
    """The match list said "mine (2)": a place that read as a version (an A/B test seats
    two versions of one bot); every page says a place as 1st, 2nd, 3rd, 4th."""
    import re

    from dashboard.pages import ordinal

    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 102)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "102nd",
    ]  # fmt: skip
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=2)
    page = client.get("/matches").text
    seats = re.findall(r'<span class="seat">([^<]*)</span>', page)
    assert seats and all(re.fullmatch(r"\S+ v\d+: \d+(st|nd|rd|th)", s) for s in seats), seats


def test_a_reveal_time_is_written_as_every_moment_is_and_never_early() -> None:
    """A ladder match's page said "public from 2026-12-04T22:12:31+00:00"."""
    from datetime import UTC, datetime

    from arena.services.views.disclosure import _minute_after

    assert _minute_after(datetime(2026, 12, 4, 22, 12, 31, tzinfo=UTC)) == "2026-12-04 22:13 UTC"
    assert _minute_after(datetime(2026, 12, 4, 22, 12, tzinfo=UTC)) == "2026-12-04 22:12 UTC"


def test_a_ladder_over_reads_stopped_not_done() -> None:
    """The demo ladder read "done: 2 played": a ladder never ends by itself."""
    from types import SimpleNamespace

    from dashboard.pages import state

    ladder = SimpleNamespace(plays_until_stopped=True, status="done")
    assert state(ladder) == "stopped"
    assert state(SimpleNamespace(plays_until_stopped=False, status="done")) == "done"
    assert state(SimpleNamespace(plays_until_stopped=True, status="running")) == "running"


@pytest.mark.both_databases
def test_a_bots_match_list_is_its_matches_newest_first_however_it_is_filtered(
    app_and_token, monkeypatch
) -> None:
    """One bot's list (a walk of each of its versions' seats, newest first, merged; the
    matches of all their seats as one set past ``MOST_WALKS`` versions) holds exactly its
    matches, newest first, through the filters, pages and keyset, whether the bot has one
    version or two; a name no bot has lists none."""
    from sqlalchemy import select, update

    from arena.base.states import MatchStatus
    from arena.store.models import BotVersion, MatchSeat, RegisteredBot, TournamentMatch

    client, _, arena = app_and_token
    add_samples(arena.db)
    arena.db.transaction(lambda s: tournaments.create(s, "cup", RULES, SAMPLES, 3, 12))
    arena.start_tournament("cup")
    ids = match_ids(arena.db)
    with arena.db.read() as session:  # a match of both bots is left queued
        queued = next(
            match_id
            for match_id in ids
            if {"counter", "honest"}
            <= set(
                session.scalars(
                    select(RegisteredBot.name)
                    .join(BotVersion, BotVersion.bot_id == RegisteredBot.id)
                    .join(MatchSeat, MatchSeat.bot_version_id == BotVersion.id)
                    .where(MatchSeat.match_id == match_id)
                )
            )
        )
    for match_id in ids:
        if match_id != queued:
            plan = match_store.claim(arena.db, match_id, "w")
            assert plan is not None and match_store.record(arena.db, plan, play(plan), 1.0)

    def second_version(session) -> None:  # honest plays some of its matches as v2
        first = session.scalars(
            select(BotVersion).join(RegisteredBot).where(RegisteredBot.name == "honest")
        ).one()
        second = BotVersion(bot_id=first.bot_id, number=2, kind=first.kind, target=first.target)
        session.add(second)
        session.flush()
        session.execute(
            update(MatchSeat)
            .where(MatchSeat.bot_version_id == first.id, MatchSeat.match_id.in_(ids[::2]))
            .values(bot_version_id=second.id)
        )

    arena.db.transaction(second_version)
    with arena.db.read() as session:
        seated = session.execute(
            select(RegisteredBot.name, MatchSeat.match_id, TournamentMatch.status)
            .join(BotVersion, BotVersion.bot_id == RegisteredBot.id)
            .join(MatchSeat, MatchSeat.bot_version_id == BotVersion.id)
            .join(TournamentMatch, TournamentMatch.id == MatchSeat.match_id)
        ).all()
    from arena.services.views import matches as match_view

    for bot, most_walks in [("counter", 20), ("honest", 20), ("honest", 1)]:
        # one version, two walked, two read as one set (more than a bot's walks)
        monkeypatch.setattr(match_view, "MOST_WALKS", most_walks)
        theirs = sorted({m for name, m, _ in seated if name == bot}, reverse=True)
        done = sorted(
            {m for name, m, state in seated if name == bot and state is MatchStatus.DONE},
            reverse=True,
        )
        assert theirs and done != theirs

        def listed(bot: str = bot, **params) -> list[int]:
            got = client.get("/api/v1/matches", params={"bot": bot, **params})
            assert got.status_code == 200, got.text
            return [m["id"] for m in got.json()["items"]]

        assert listed() == theirs
        assert listed(tournament="cup", status="done") == done
        assert listed(per_page=2, page=2) == theirs[2:4]
        assert listed(before=theirs[1]) == theirs[2:]
        assert listed(tournament="nothing") == []
    assert listed("nobody") == []
    assert client.get("/api/v1/matches", params={"bot": "nobody", "status": "x"}).status_code == 422
