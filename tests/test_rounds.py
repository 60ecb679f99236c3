"""Formats played in rounds: Swiss and knockout as strategies (pure), then played
through the store as the workers play them (a round seated when the last is over)."""

from __future__ import annotations

import itertools
import random

import pytest
from sqlalchemy import select

from arena.base.errors import Invalid
from arena.base.states import BotKind, MatchStatus, TournamentStatus
from arena.engine import Ruleset
from arena.services import tournaments as tournament_service
from arena.store import bots, tournaments
from arena.store.db import Database
from arena.store.models import TournamentMatch
from arena.tournament import formats
from arena.tournament.formats.rounds import Field, TableResult
from tests.support.api import auth
from tests.support.store import SAMPLES, add_samples, play_out

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases

SWISS, KNOCKOUT = formats.SWISS, formats.KNOCKOUT


def _play_round(
    tables: list[list[int]], number: int, strength: dict[int, float], rng: random.Random
) -> list[TableResult]:
    """Each table's score: its bots ordered by planted strength plus noise."""
    results = []
    for table in tables:
        drawn = {bot: strength[bot] + rng.gauss(0, 0.5) for bot in table}
        order = sorted(table, key=lambda b: -drawn[b])
        results.append(TableResult(number, tuple(table), {b: float(order.index(b)) for b in order}))
    return results


def _run(fmt, bots: list[int], size: int, option: int, seed: int = 1) -> list[TableResult]:
    rng = random.Random(seed)
    strength = {bot: -index for index, bot in enumerate(bots)}  # the first is strongest
    played: list[TableResult] = []
    while (tables := fmt.next_round(Field(bots, played, size, option, {}))) is not None:
        number = 1 + max((t.round for t in played), default=-1)
        assert all(2 <= len(t) <= size for t in tables)
        seated = [b for t in tables for b in t]
        assert len(seated) == len(set(seated)), "a bot at two tables of one round"
        played += _play_round(tables, number, strength, rng)
        assert number < 50, "the format never ends"
    return played


def test_swiss_plays_its_rounds_with_every_bot_at_one_table_and_no_table_twice() -> None:
    bots = list(range(12))
    played = _run(SWISS, bots, 4, 5)
    assert 1 + max(t.round for t in played) == 5 == SWISS.rounds(12, 4, 5)
    for number in range(5):
        seated = sorted(b for t in played if t.round == number for b in t.bots)
        assert seated == bots, "every bot plays every round (12 fill 3 tables)"
    tables = [frozenset(t.bots) for t in played]
    assert len(tables) == len(set(tables)), "no table played twice"


def test_swiss_seats_bots_of_similar_standing_together() -> None:
    """After the first round, the leaders meet the leaders: the first table of the
    second round holds the four best by points."""
    bots = list(range(16))
    played = _run(SWISS, bots, 4, 1)
    field = Field(bots, played, 4, 2, {})
    order = [s.bot for s in SWISS.standings(field)]
    second = SWISS.next_round(field)
    assert second is not None and set(second[0]) == set(order[:4])
    points = [s.figures["points"] for s in SWISS.standings(field)]
    assert points == sorted(points, reverse=True)


def test_swiss_gives_the_bye_to_a_different_bot_each_round() -> None:
    bots = list(range(9))
    played = _run(SWISS, bots, 4, 3)
    sat_out = [set(bots) - {b for t in played if t.round == n for b in t.bots} for n in range(3)]
    assert all(len(out) == 1 for out in sat_out)
    assert len(set.union(*sat_out)) == 3, "never the same bot twice"
    standings = SWISS.standings(Field(bots, played, 4, 3, {}))
    assert [s.place for s in standings] == list(range(1, 10))


@pytest.mark.parametrize(
    ("count", "size", "advance", "rounds"),
    [(16, 4, 2, 3), (16, 4, 1, 2), (5, 4, 2, 2), (3, 2, 1, 2), (9, 3, 1, 2), (4, 4, 2, 1)],
)
def test_knockout_narrows_to_a_final_table_and_ranks_its_winner_first(
    count: int, size: int, advance: int, rounds: int
) -> None:
    bots = list(range(count))
    played = _run(KNOCKOUT, bots, size, advance)
    assert 1 + max(t.round for t in played) == rounds == KNOCKOUT.rounds(count, size, advance)
    final = [t for t in played if t.round == rounds - 1]
    assert len(final) == 1
    standings = KNOCKOUT.standings(Field(bots, played, size, advance, {}))
    assert [s.place for s in standings] == list(range(1, count + 1))
    assert standings[0].bot == final[0].order({})[0], "the final's winner is first"
    assert {s.bot for s in standings[: len(final[0].bots)]} == set(final[0].bots)
    for earlier, later in itertools.pairwise(range(rounds)):
        went_on = {b for t in played if t.round == later for b in t.bots}
        for table in (t for t in played if t.round == earlier):
            best = table.order({})[: min(advance, len(table.bots) - 1)]
            assert set(best) <= went_on, "each table's best go on"
            assert set(table.order({})[len(best) :]).isdisjoint(went_on), "the rest go home"


def _field(db: Database, count: int) -> list[str]:
    kinds = ["counter", "honest", "bluffer", "random"]
    names = [f"bot{i}" for i in range(count)]
    db.transaction(
        lambda s: [
            bots.add_bot(s, name, BotKind.SAMPLE, kinds[i % len(kinds)])
            for i, name in enumerate(names)
        ]
    )
    return names


@pytest.mark.parametrize(
    ("format", "count", "option", "expected_matches"),
    [("swiss", 8, 3, 3 * 2 * 4), ("knockout", 8, 2, 2 * 4 + 4)],
)
def test_a_tournament_in_rounds_plays_through_the_store_to_its_standings(
    db: Database, format: str, count: int, option: int, expected_matches: int
) -> None:
    names = _field(db, count)
    rules = Ruleset.parse("classic")
    db.transaction(
        lambda s: tournaments.create(
            s, "cup", rules, names, 4, option, seed="s", format=format, advance=option
        )
    )
    assert play_out(db, "cup") == expected_matches
    with db.read() as s:
        status = tournament_service.status(s, "cup")
        found = tournaments.get(s, "cup")
        groups = s.execute(
            select(TournamentMatch.deal_group, TournamentMatch.seed, TournamentMatch.round).where(
                TournamentMatch.tournament_id == found.id
            )
        ).all()
        statuses = set(
            s.scalars(
                select(TournamentMatch.status).where(TournamentMatch.tournament_id == found.id)
            )
        )
    assert status.status == TournamentStatus.DONE and statuses == {MatchStatus.DONE}
    standings = status.standings
    assert sorted(row.bot for row in standings) == names
    assert [row.place for row in standings] == list(range(1, count + 1))
    seeds_by_group: dict[int, set[str]] = {}
    for group, seed, _ in groups:
        seeds_by_group.setdefault(group, set()).add(seed)
    assert all(len(s) == 1 for s in seeds_by_group.values()), "a table's rotations share a deal"
    assert len({next(iter(s)) for s in seeds_by_group.values()}) == len(seeds_by_group)
    assert all(row.games > 0 for row in status.leaderboard), "rated as duplicate deals"


def test_a_knockout_sends_on_fewer_than_a_table_or_it_is_refused(db: Database) -> None:
    names = _field(db, 8)
    rules = Ruleset.parse("classic")
    for advance in (0, 4):
        with pytest.raises(Invalid, match="a knockout sends 1 to 3 of each table on"):
            db.transaction(
                lambda s, a=advance: tournaments.create(
                    s, "ko", rules, names, 4, 1, format="knockout", advance=a
                )
            )
    with pytest.raises(Invalid, match="needs at least 4 bots"):
        db.transaction(
            lambda s: tournaments.create(s, "sw", rules, names[:3], 4, 2, format="swiss")
        )


@pytest.mark.parametrize(("format", "heading"), [("swiss", "Rounds"), ("knockout", "Bracket")])
def test_the_tournament_page_draws_the_rounds_and_the_standings(
    app_and_token, format: str, heading: str
) -> None:
    client, _, arena = app_and_token
    names = _field(arena.db, 8)
    rules = Ruleset.parse("classic")
    arena.db.transaction(
        lambda s: tournaments.create(s, "cup", rules, names, 4, 2, format=format, advance=2)
    )
    play_out(arena.db, "cup")
    page = client.get("/tournaments/cup")
    assert page.status_code == 200
    assert f"<h2>{heading}</h2>" in page.text and "<h2>Standings</h2>" in page.text
    assert page.text.count("<h3>Round ") == 2
    assert page.text.count('<ul class="round-table">') == (4 if format == "swiss" else 3)
    with arena.db.read() as s:
        first = tournament_service.status(s, "cup").standings[0].bot
    standings = page.text[page.text.index('<table id="standings">') :]
    assert standings.index(f">{first}</a>") < min(
        standings.index(f">{name}</a>") for name in names if name != first
    )
    # one order on the page: the rating table follows the standings (it ranked by rating)
    with arena.db.read() as s:
        placed = [(p.bot, p.place) for p in tournament_service.status(s, "cup").standings]
        figures = tournament_service.status(s, "cup").standings[0].figures
    board = client.get("/api/v1/tournaments/cup/leaderboard").json()
    assert [(row["bot"], row["rank"]) for row in board] == placed
    assert {"score", "tie-break"} <= set(figures), figures  # scores in every format's JSON


def test_tied_scores_share_a_place_and_the_tie_break_is_named() -> None:
    """A knockout final of two bots tied on score crowned one on a rating gap and said
    nothing: the standings name the rule that ordered them."""
    from arena.tournament.formats.knockout import Knockout
    from arena.tournament.formats.rounds import Field, TableResult

    final = TableResult(0, (1, 2, 3), {1: 1.0, 2: 1.0, 3: 2.0})
    rating = {1: 20.0, 2: 20.03, 3: 25.0}
    assert final.places(rating) == {2: 1, 1: 1, 3: 3}
    field = Field(bots=(1, 2, 3), played=(final,), table_size=3, option=1, rating=rating)
    standings = Knockout().standings(field)
    assert [(st.bot, st.place, st.figures["tie-break"]) for st in standings] == [
        (2, 1, "rating"), (1, 2, "rating"), (3, 3, "-"),
    ]  # fmt: skip
    assert [st.figures["score"] for st in standings] == [1.0, 1.0, 2.0]


def test_an_owner_makes_a_private_swiss_tournament_through_the_api_within_the_limits(
    app_and_token,
) -> None:
    client, token, arena = app_and_token
    add_samples(arena.db)
    body = {"name": "sw", "bots": SAMPLES, "table_size": 2, "format": "swiss", "rounds": 3}
    created = client.post("/api/v1/tournaments", headers=auth(token), json=body)
    assert created.status_code == 201, created.text
    assert created.json()["format"] == "swiss"
    assert client.post("/api/v1/tournaments/sw/start", headers=auth(token)).json() == {
        "name": "sw",
        "queued": len(SAMPLES),  # the first round: every bot at one table, two rotations
    }
    too_long = {**body, "name": "long", "rounds": 100}  # 100 rounds x 4 bots: over 200 games
    refused = client.post("/api/v1/tournaments", headers=auth(token), json=too_long)
    assert refused.status_code == 400 and "at most" in refused.json()["detail"]
    knockout = {**body, "name": "ko", "format": "knockout", "advance": 2}
    refused = client.post("/api/v1/tournaments", headers=auth(token), json=knockout)
    assert refused.status_code == 400
    assert "a knockout sends 1 to 1 of each table on" in refused.json()["detail"]
