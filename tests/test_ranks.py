"""A leaderboard a page of ranks at a time: the tournament's, the competition's and the
default competition's pages show ``PER_PAGE`` ranks (three here, of four bots) with the
way to the others, the live rows keep the page's ranks, and a rank past the last shows
the last page."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from arena.platform import Platform
from arena.services.views import ranks as ranks_page
from tests.support.api import played_tournament
from tests.support.store import SAMPLES, add_samples, played_competition


@pytest.fixture
def three_a_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranks_page, "PER_PAGE", 3)


def _ranks(html: str, table: str) -> list[str]:
    """The ranks a page's table shows (its rows' first cells)."""
    body = html.split(f'id="{table}"', 1)[1].split("</tbody>", 1)[0]
    return _first_cells(body)


def _first_cells(rows: str) -> list[str]:
    return re.findall(r"<tr>\s*<td>(\d+)</td>", rows)


def test_page_of_ranks_a_page_at_a_time() -> None:
    rows = list("abcdefg")
    assert ranks_page.page_of(rows, 1, per_page=3)[0] == ["a", "b", "c"]
    shown, ranks = ranks_page.page_of(rows, 4, per_page=3)
    assert shown == ["d", "e", "f"] and (ranks.start, ranks.end, ranks.total) == (4, 6, 7)
    assert (ranks.previous_from, ranks.next_from) == (1, 7)
    last, at_end = ranks_page.page_of(rows, 99, per_page=3)
    assert last == ["g"] and (at_end.start, at_end.next_from, at_end.previous_from) == (7, None, 4)
    assert ranks_page.page_of(rows, 2, per_page=3)[0] == ["b", "c", "d"], "from any rank"
    none, empty = ranks_page.page_of([], 5, per_page=3)
    assert none == [] and (empty.start, empty.end, empty.total, empty.next_from) == (1, 0, 0, None)


def test_a_tournament_s_leaderboard_a_page_of_ranks_at_a_time(
    app_and_token: tuple[TestClient, str, Platform], three_a_page: None
) -> None:
    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=2)
    first = client.get("/tournaments/cup").text
    assert _ranks(first, "leaderboard") == ["1", "2", "3"]
    assert "ranks 1–3 of 4" in first and 'href="?ranks_from=4#leaderboard-ranks"' in first
    second = client.get("/tournaments/cup?ranks_from=4").text
    assert _ranks(second, "leaderboard") == ["4"] and 'data-ranks-from="4"' in second
    assert 'rel="prev" href="?ranks_from=1#leaderboard-ranks"' in second
    assert _ranks(client.get("/tournaments/cup?ranks_from=40").text, "leaderboard") == ["4"]
    rows = client.get("/tournaments/cup/leaderboard?ranks_from=4").text
    assert _first_cells(rows) == ["4"], "the live rows keep the page's"
    assert client.get("/tournaments/cup?ranks_from=0").status_code == 400, "a page says why"
    every = client.get("/api/v1/tournaments/cup/leaderboard").json()
    assert [row["rank"] for row in every] == [1, 2, 3, 4], "the API's is whole"


def test_a_competition_and_the_leaderboard_a_page_of_ranks_at_a_time(
    app_and_token: tuple[TestClient, str, Platform], three_a_page: None
) -> None:
    client, _, arena = app_and_token
    add_samples(arena.db)
    played_competition(arena.db, "main", SAMPLES, rounds=2)
    standings = client.get("/competitions/main").text
    assert _ranks(standings, "standings") == ["1", "2", "3"] and "ranks 1–3 of 4" in standings
    assert _ranks(client.get("/competitions/main?ranks_from=4").text, "standings") == ["4"]
    board = client.get("/leaderboard").text
    assert _ranks(board, "global-leaderboard") == ["1", "2", "3"] and "ranks 1–3 of 4" in board
    assert _ranks(client.get("/leaderboard?ranks_from=4").text, "global-leaderboard") == ["4"]


def test_a_leaderboards_top_ranks_are_its_first_rows(
    app_and_token: tuple[TestClient, str, Platform],
) -> None:
    """A chart's leaders and a retention's best entries read only the top ranks: the same
    rows, in the same order, as the whole board's first."""
    from arena.store import tournaments
    from arena.store.models import Tournament

    client, token, arena = app_and_token
    played_tournament(client, token, arena, games=2)
    with arena.db.read() as session:
        cup = session.query(Tournament).filter_by(name="cup").one()
        whole = tournaments.leaderboard(session, cup)
        assert len(whole) == 4
        for top in (0, 1, 3, 4, 9):
            assert tournaments.leaderboard(session, cup, top=top) == whole[:top]
