"""Tournaments: list, detail with leaderboard, create and start."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, status

from arena.services import fairplay
from arena.services import tournaments as tournament_service
from arena.services.views import tournaments as tournament_queries
from arena.services.views.schemas import (
    DealGroup,
    LeaderboardRow,
    Responses,
    Started,
    TournamentCreate,
    TournamentDetail,
    TournamentPublic,
    TournamentRow,
)
from arena.services.views.visibility import tournament_named
from dashboard.deps import ActorDep, OwnerDep, PlatformDep, ReaderDep, SessionDep

router = APIRouter(tags=["tournaments"])
NOT_FOUND: Responses = {404: {"description": "No such tournament"}}


@router.get("/tournaments", response_model=list[TournamentPublic])
def list_tournaments(session: SessionDep) -> list[TournamentRow]:
    return tournament_queries.tournaments(session)


@router.get("/tournaments/{name}", response_model=TournamentDetail, responses=NOT_FOUND)
def get_tournament(name: str, session: SessionDep, reader: ReaderDep) -> TournamentDetail:
    return tournament_queries.tournament(session, name, reader.id if reader else None)


@router.get(
    "/tournaments/{name}/leaderboard", response_model=list[LeaderboardRow], responses=NOT_FOUND
)
def get_leaderboard(name: str, session: SessionDep, reader: ReaderDep) -> list[LeaderboardRow]:
    return tournament_queries.leaderboard(session, name, reader.id if reader else None)


@router.post(
    "/tournaments",
    response_model=TournamentDetail,
    status_code=status.HTTP_201_CREATED,
    responses={
        400: {"description": "Invalid tournament, or over a private tournament's limits"},
        401: {"description": "No token"},
        403: {"description": "Another owner's bot"},
    },
)
def create_tournament(
    body: TournamentCreate, owner: OwnerDep, platform: PlatformDep
) -> TournamentDetail:
    """An owner's tournament is private: their own bots and the samples, within limits."""
    request = body.request()
    tournament_service.create(platform.db, request, owner, platform.settings.private_limits)
    with platform.db.read() as session:
        return tournament_queries.tournament(session, body.name)


@router.post(
    "/tournaments/{name}/start",
    response_model=Started,
    responses={
        **NOT_FOUND,
        401: {"description": "No token"},
        403: {"description": "Not your tournament"},
        409: {"description": "Over already"},
        503: {"description": "No Redis"},
    },
)
def start_tournament(name: str, owner: ActorDep, platform: PlatformDep) -> Started:
    """Only the tournament's creator starts it, or the operator (their token)."""
    return Started(name=name, queued=platform.start_tournament(name, owner))


@router.post(
    "/tournaments/{name}/stop",
    response_model=Started,
    responses={
        **NOT_FOUND,
        400: {"description": "Not a ladder"},
        401: {"description": "No token"},
        403: {"description": "Not your tournament"},
    },
)
def stop_tournament(name: str, owner: ActorDep, platform: PlatformDep) -> Started:
    """Stop a ladder (its creator, or the operator): no new tables, the ones in play are
    recorded.
    ``queued`` is the number of queued matches dropped."""

    dropped = tournament_service.stop(platform.db, name, owner)
    return Started(name=name, queued=dropped)


@router.get("/tournaments/{name}/groups", response_model=list[DealGroup], responses=NOT_FOUND)
def get_groups(name: str, session: SessionDep) -> list[DealGroup]:
    """Duplicate tournaments: each bot's score per deal group, newest first."""
    return tournament_queries.deal_groups(session, name)


@router.get(
    "/tournaments/{name}/fairplay", response_model=fairplay.FairPlayReport, responses=NOT_FOUND
)
def get_fairplay(
    name: str, platform: PlatformDep, pairs: Literal["flagged", "all"] = "flagged"
) -> fairplay.FairPlayReport:
    """The collusion report: every pair of bots tested for team play, the flags that
    survive Holm's family-wise error control (docs/fair-play.md); ``?pairs=all`` adds
    every pair's places gained together, with its 95 % interval."""
    with platform.db.read() as session:
        tournament_named(session, name)
    return fairplay.report(platform.db, name, all_pairs=pairs == "all")
