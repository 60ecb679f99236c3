"""Competitions: the home page's list, and one competition's page."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.services.views import ranks as ranks_page
from arena.services.views.matches import matches
from arena.services.views.schemas import CompetitionPage, CompetitionRow, LeaderboardRow
from arena.store import competitions, ladder
from arena.store import tournaments as tournament_store
from arena.store.models import Competition
from arena.tournament import pacing

#: matches a competition's page lists (the newest)
RECENT = 20


def competition_rows(session: Session) -> list[CompetitionRow]:
    """Every competition, the default first, then by name."""
    found = session.scalars(
        select(Competition).order_by(Competition.is_default.desc(), Competition.name)
    )
    return [_row(session, competition) for competition in found]


def _row(
    session: Session,
    competition: Competition,
    board: list[tournament_store.BoardRow] | None = None,
    pace: dict[str, Any] | None = None,
) -> CompetitionRow:
    """A competition's line (``board`` and ``pace``: its ladder's, if already read)."""
    ladder_ = competition.tournament
    if board is None:
        board = tournament_store.leaderboard(session, ladder_)
    leader = next((f"{r.bot} v{r.version}" for r in board if r.games), None)
    return CompetitionRow(
        name=competition.name,
        season=competition.season,
        status=competition.status.value,
        default=competition.is_default,
        ladder=ladder_.name,
        rules=ladder_.rules,
        table_size=ladder_.table_size,
        bots=len(board),
        leader=leader,
        played=tournament_store.progress(session, ladder_)["done"],
        pace=ladder.pace_of(session, ladder_) if pace is None else pace,
    )


def competition_page(session: Session, name: str, ranks_from: int = 1) -> CompetitionPage:
    """A competition's standings (a page of them, from rank ``ranks_from``), seasons,
    pace and newest matches."""
    competition = competitions.get(session, name)
    summary = competitions.summary(session, competition)
    row = _row(session, competition, summary["leaderboard"], summary["pace"])
    board, ranks = ranks_page.page_of(summary["leaderboard"], ranks_from)
    return CompetitionPage(
        **row.model_dump(),
        format=summary["format"],
        rating=summary["rating"],
        tables=summary["tables"],
        opens_at=summary["opens_at"],
        closes_at=summary["closes_at"],
        leaderboard=[LeaderboardRow.model_validate(r) for r in board],
        ranks=ranks,
        seasons=competitions.season_names(competition),
        recent_matches=matches(session, tournament=row.ladder, per_page=RECENT).items,
        provisional=[f"{e['bot']} v{e['version']}" for e in row.pace.get("provisional", [])],
        provisional_games=pacing.PROVISIONAL_GAMES,
        log_days=summary["log_days"],
        log_top=summary["log_top"],
    )


def season_names(session: Session, name: str) -> list[str]:
    """The competition ``name``'s seasons' tournaments, first to current."""
    return competitions.season_names(competitions.get(session, name))


def default_name(session: Session) -> str | None:
    """The default competition's name (None: there is none)."""
    found = competitions.default(session)
    return found.name if found is not None else None
