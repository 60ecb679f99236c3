"""Tournaments: the list, one tournament's standings and page, and the platform's counts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.base.figures import rounded
from arena.services.views import ranks as ranks_page
from arena.services.views.ratings import head_to_head
from arena.services.views.schemas import (
    DealGroup,
    LeaderboardRow,
    Ranks,
    TournamentPage,
    TournamentRow,
)
from arena.services.views.visibility import tournament_named
from arena.store import qualifications
from arena.store import rounds as rounds_store
from arena.store import tournaments as tournament_store
from arena.store.models import (
    BotVersion,
    Entry,
    RegisteredBot,
    Tournament,
    TournamentMatch,
)
from arena.tournament import formats
from arena.tournament.ratings import conservative

#: bots in a tournament's head-to-head table (its leaders)
HEAD_TO_HEAD_BOTS = 12


#: deal groups a tournament page lists (the newest; the API lists all of them)
GROUPS_SHOWN = 20

#: the qualification matches' tournament: its matches are its page (no standings)
QUALIFICATION = qualifications.NAME


def leaderboard(session: Session, name: str, reader: int | None = None) -> list[LeaderboardRow]:
    """The standings of the tournament ``name`` as ``reader`` may see it."""
    found = tournament_named(session, name, reader)
    return [LeaderboardRow.model_validate(row) for row in _board(session, found)]


def leaderboard_page(
    session: Session, name: str, ranks_from: int = 1
) -> tuple[list[LeaderboardRow], Ranks]:
    """A page of the tournament's standings, from rank ``ranks_from``."""
    rows, ranks = ranks_page.page_of(_board(session, tournament_named(session, name)), ranks_from)
    return [LeaderboardRow.model_validate(row) for row in rows], ranks


def _board(session: Session, found: Tournament) -> list[tournament_store.BoardRow]:
    """The leaderboard in the format's own order: a format played in rounds ranks by its
    standings (its result), the others by the rating of record."""
    board = tournament_store.leaderboard(session, found)
    if not formats.named(found.format).in_rounds:
        return board
    place = {(p.bot, p.version): p.place for p in rounds_store.standings(session, found)}
    last = len(place) + 1
    ordered = sorted(board, key=lambda row: (place.get((row.bot, row.version), last), row.rank))
    return [replace(row, rank=place.get((row.bot, row.version), row.rank)) for row in ordered]


def deal_groups(session: Session, name: str) -> list[DealGroup]:
    """A duplicate tournament's scores per deal group, newest first."""
    groups = tournament_store.group_scores(session, tournament_named(session, name))
    return [DealGroup.model_validate(group) for group in groups]


def tournaments(session: Session) -> list[TournamentRow]:
    """Every tournament, newest first, with its bot count and current leader."""
    entries = session.execute(
        select(
            Entry.tournament_id,
            RegisteredBot.name,
            BotVersion.number,
            Entry.mu,
            Entry.sigma,
            Entry.games,
        )
        .join(BotVersion, BotVersion.id == Entry.bot_version_id)
        .join(RegisteredBot, RegisteredBot.id == BotVersion.bot_id)
    ).all()
    bots: dict[int, int] = {}
    leaders: dict[int, tuple[float, str]] = {}
    for entry in entries:
        bots[entry.tournament_id] = bots.get(entry.tournament_id, 0) + 1
        score = conservative(entry.mu, entry.sigma)
        best = leaders.get(entry.tournament_id)
        if entry.games and (best is None or score > best[0]):
            leaders[entry.tournament_id] = (score, f"{entry.name} v{entry.number}")
    rows: list[TournamentRow] = []
    listed = select(Tournament).where(
        Tournament.format.in_(formats.having(lambda format: format.listed))
    )
    for tournament in session.scalars(listed.order_by(Tournament.id.desc())):
        leader = leaders.get(tournament.id)
        rows.append(
            TournamentRow(
                **_tournament_summary(session, tournament),
                bots=bots.get(tournament.id, 0),
                leader=leader[1] if leader else None,
            )
        )
    return rows


def _tournament_summary(session: Session, tournament: Tournament) -> dict[str, Any]:
    format = formats.named(tournament.format)
    return {
        **tournament_store.summary(session, tournament),
        "unit": format.unit,
        "plays_until_stopped": not format.ends_by_itself,
        "created_at": tournament.created_at.isoformat(),
    }


def tournament(session: Session, name: str, reader: int | None = None) -> TournamentPage:
    """A tournament with its standings and (duplicate deals) its newest deal groups, if
    ``reader`` may see it."""
    return _tournament(session, tournament_named(session, name, reader))[0]


def _tournament(session: Session, found: Tournament) -> tuple[TournamentPage, list[int]]:
    """The tournament and its leaderboard's version ids, best first."""
    board = _board(session, found)
    groups = tournament_store.group_scores(session, found) if found.duplicate else []
    format = formats.named(found.format)
    page = TournamentPage(
        **_tournament_summary(session, found),
        id=found.id,
        leaderboard=[LeaderboardRow.model_validate(row) for row in board],
        duplicate=found.duplicate,
        groups=[DealGroup.model_validate(group) for group in groups[:GROUPS_SHOWN]],
        groups_total=len(groups),
        draws=list(format.draws),
        explained=format.explained,
        **_in_rounds(session, found),
    )
    return page, [row.version_id for row in board]


def tournament_page(session: Session, name: str, ranks_from: int = 1) -> TournamentPage:
    """A tournament as its page shows it: ``tournament`` with a page of its leaderboard,
    from rank ``ranks_from``, plus the leaders' head-to-head table (the rating chart
    comes separately: ``leaders_ratings``)."""
    found = tournament_named(session, name)
    page, versions = _tournament(session, found)
    table = head_to_head(session, found.id, versions[:HEAD_TO_HEAD_BOTS])
    rows, ranks = ranks_page.page_of(page.leaderboard, ranks_from)
    return page.model_copy(update={"head_to_head": table, "leaderboard": rows, "ranks": ranks})


def counts(session: Session) -> dict[str, int]:
    return {
        "bots": session.scalar(select(func.count()).select_from(RegisteredBot)) or 0,
        "matches": session.scalar(select(func.count()).select_from(TournamentMatch)) or 0,
    }


def _in_rounds(session: Session, found: Tournament) -> dict[str, Any]:
    """A format played in rounds: its rounds' tables and its standings."""
    if not formats.named(found.format).in_rounds:
        return {}
    standings = [placing.as_row() for placing in rounds_store.standings(session, found)]
    return rounded({"rounds": rounds_store.rounds(session, found), "standings": standings})
