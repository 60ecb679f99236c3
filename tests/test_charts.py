"""Rating charts and the head-to-head table: the pure geometry, and the queries behind
them on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from arena.services.views import charts
from arena.services.views import matches as match_queries
from arena.services.views import ratings as rating_queries
from arena.store import tournaments as tournament_store
from arena.store.models import PairResult, Tournament
from arena.store.schema import alembic_config
from tests.support.api import played_tournament

#: the store's contract: on SQLite and PostgreSQL alike
pytestmark = pytest.mark.both_databases


def test_ticks_are_round_and_cover_the_range() -> None:
    assert charts.ticks(0, 100) == [0, 20, 40, 60, 80, 100]
    assert charts.ticks(13.2, 31.9) == [15, 20, 25, 30]
    assert charts.ticks(1, 7) == [2, 4, 6]
    assert charts.ticks(5, 5) == [5]


def test_long_histories_are_thinned_keeping_both_ends() -> None:
    points = [{"x": i} for i in range(1, 10_001)]
    kept = charts.thin(points)
    assert len(kept) == charts.MAX_POINTS
    assert kept[0]["x"] == 1 and kept[-1]["x"] == 10_000
    assert [p["x"] for p in kept] == sorted({p["x"] for p in kept})


def test_a_date_is_labelled_only_where_it_changes() -> None:
    """Every tick said the same time ("10:02 10:02 10:02 …") when the matches were quick."""
    at = ["2026-12-01T10:02:05", "2026-12-01T10:02:40", "2026-12-01T10:07:00"]
    points = [
        {"x": i, "n": i, "mu": 25, "sigma": 8, "at": at[0 if i < 40 else (1 if i < 80 else 2)]}
        for i in range(1, 101)
    ]
    chart = charts.chart([charts.Series("a v1", points)])
    labels = [tick["date"] for tick in chart["x_ticks"]]
    shown = [label for label in labels if label]
    assert shown == ["10:02", "10:07"], labels
    assert labels[0] == "10:02"


def test_a_chart_places_every_series_inside_its_plot() -> None:
    rising = [{"x": i, "n": i, "mu": 20 + i, "sigma": 8 - i, "at": None} for i in range(1, 6)]
    flat = [{"x": i, "n": i // 2, "mu": 25, "sigma": 3, "at": None} for i in range(2, 7, 2)]
    chart = charts.chart([charts.Series("a v1", rising), charts.Series("b v1", flat)])
    plot = chart["plot"]
    assert [s.updates for s in chart["series"]] == [5, 3]
    assert chart["series"][0].colour != chart["series"][1].colour
    for series in chart["series"]:
        for mark in series.marks:
            assert plot["left"] <= mark["x"] <= plot["right"]
            assert plot["top"] <= mark["y"] <= plot["bottom"]
    highest = min(chart["series"][0].marks, key=lambda m: m["y"])  # SVG y grows downwards
    assert "mu 25.00 · sigma 3.00" in highest["tip"] and "update 5" in highest["tip"]


def test_hiding_a_series_rescales_the_axes_to_the_ones_shown() -> None:
    """A bot far above the others squeezes their lines flat; hidden, it leaves the axes."""
    high = [{"x": i, "n": i, "mu": 60 + i, "sigma": 1, "at": None} for i in range(1, 6)]
    low = [{"x": i, "n": i, "mu": 20 + i / 10, "sigma": 1, "at": None} for i in range(1, 6)]

    def drawn(hidden: frozenset[str]) -> dict:
        series = [charts.Series("high v1", list(high)), charts.Series("low v1", list(low))]
        return charts.chart(series, hidden=hidden)

    both, alone = drawn(frozenset()), drawn(frozenset({"high v1"}))
    assert [s.shown for s in alone["series"]] == [False, True], "still in the legend"
    assert [s.colour for s in alone["series"]] == [s.colour for s in both["series"]]
    ticks = [float(t["label"]) for t in alone["y_ticks"]]
    assert max(ticks) < 30, "the axis spans the low series only"
    spread = [m["y"] for m in alone["series"][1].marks]
    squeezed = [m["y"] for m in both["series"][1].marks]
    assert max(spread) - min(spread) > 3 * (max(squeezed) - min(squeezed))
    everything_hidden = drawn(frozenset({"high v1", "low v1"}))
    assert everything_hidden["y_ticks"] == both["y_ticks"], "no series shown: axes kept"


def test_rating_history_and_head_to_head_agree_with_the_played_matches(app_and_token) -> None:
    client: TestClient
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=8)
    with arena.db.read() as session:
        found = tournament_store.get(session, "cup")
        board = tournament_store.leaderboard(session, found)
        leaders = [row.version_id for row in board]
        history = rating_queries.rating_history(session, found.id, leaders)
        grid = rating_queries.head_to_head(session, found.id, leaders)
        places = [
            {seat.bot: seat.place for seat in match.seats}
            for match in match_queries.matches(session, tournament="cup").items
        ]
    assert list(history) == [f"{row.bot} v{row.version}" for row in board]
    for row in board:
        points = history[f"{row.bot} v{row.version}"]
        assert [p["n"] for p in points] == list(range(1, 9))
        assert points[-1]["mu"] == row.mu or abs(points[-1]["mu"] - row.mu) < 1e-3
        assert all(p["at"] for p in points)
    assert grid["bots"] == [f"{row.bot} v1" for row in board]
    for a, b in itertools.permutations(sorted(row.bot for row in board), 2):
        cell = grid["cells"][f"{a} v1|{b} v1"]
        ahead = sum(p[a] < p[b] for p in places)
        behind = sum(p[a] > p[b] for p in places)
        assert (cell["ahead"], cell["behind"]) == (ahead, behind)
        assert cell["ahead"] + cell["behind"] + cell["level"] == 8
        mirror = grid["cells"][f"{b} v1|{a} v1"]
        assert (mirror["ahead"], mirror["behind"]) == (behind, ahead)


def test_a_long_history_is_thinned_in_the_database(app_and_token) -> None:
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=12)
    with arena.db.read() as session:
        found = tournament_store.get(session, "cup")
        saved = charts.MAX_POINTS
        charts.MAX_POINTS = 5
        try:
            counter = next(
                r.version_id
                for r in tournament_store.leaderboard(session, found)
                if r.bot == "counter"
            )
            thinned = rating_queries.rating_history(session, found.id, [counter])
        finally:
            charts.MAX_POINTS = saved
    assert [p["n"] for p in thinned["counter v1"]] == [1, 4, 7, 10, 12]


def test_head_to_head_totals_kept_while_recording_equal_the_migration_s_backfill(
    app_and_token,
) -> None:
    """The running totals written with each match equal what migration 0010 computes
    from the seats of the recorded matches."""
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=10)

    def totals() -> list[tuple]:
        with arena.db.read() as session:
            return sorted(tuple(row) for row in session.execute(select(PairResult.__table__)))

    kept = totals()
    assert len(kept) == 6 and all(sum(row[3:]) == 10 for row in kept)
    config = alembic_config()
    with arena.db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0009")
        command.upgrade(config, "head")
        connection.commit()
    assert totals() == kept


def test_the_duplicate_deal_note_is_said_for_duplicate_tournaments_only(app_and_token) -> None:
    client: TestClient
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=4)
    note = "rates a deal group once"
    chart = client.get("/tournaments/cup/chart").text
    assert "rating-chart" in chart and note not in chart
    arena.db.transaction(lambda s: s.execute(update(Tournament).values(duplicate=True)))
    assert note in client.get("/tournaments/cup/chart").text
    assert note in client.get("/bots/counter").text
    # the bot page's chart, drawn again without a hidden version (its legend keeps it)
    fragment = client.get("/bots/counter/chart", params={"tournament": "cup"}).text
    assert note in fragment and fragment.count('class="series"') == 1
    hidden = client.get("/bots/counter/chart", params={"tournament": "cup", "hidden": "counter v1"})
    assert hidden.text.count('class="series"') == 0 and 'data-series="counter v1"' in hidden.text
    assert client.get("/bots/counter/chart", params={"tournament": "nope"}).status_code == 404
