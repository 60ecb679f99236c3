"""Matches: filtered pages, one match, its log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse

from arena.base.states import MatchStatus
from arena.services.views import matches as match_queries
from arena.services.views.schemas import MatchPage, MatchPublic, Replay, Responses
from dashboard.cache import until_disclosed
from dashboard.deps import ReaderDep, SessionDep

router = APIRouter(tags=["matches"])
NOT_FOUND: Responses = {404: {"description": "No such match"}}
#: a log read: its competition's retention may have dropped it
LOG_READ: Responses = {
    **NOT_FOUND,
    410: {"description": "Its competition's retention dropped the log; the match stays"},
}
MatchId = Annotated[int, Path(ge=1, le=2**63 - 1, description="A match id")]


@router.get("/matches", response_model=MatchPage)
def list_matches(
    session: SessionDep,
    reader: ReaderDep,
    tournament: str | None = None,
    bot: str | None = None,
    status_: Annotated[
        MatchStatus | None, Query(alias="status", description="Only matches in this status")
    ] = None,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=200)] = match_queries.PER_PAGE,
    before: Annotated[
        int | None,
        Query(ge=1, le=2**31 - 1, description="Only matches older than this one (next_before)"),
    ] = None,
) -> MatchPage:
    """Matches, newest first; a forfeit's words (``reason``) only on the seats of the
    reader's own bots (with an owner's token). Page on with ``before`` (each page's
    ``next_before``): as fast on the thousandth page as on the first."""
    status = status_.value if status_ else None
    mine = reader.id if reader else None
    return match_queries.matches(session, tournament, bot, status, page, per_page, mine, before)


@router.get("/matches/{match_id}", response_model=MatchPublic, responses=NOT_FOUND)
def get_match(match_id: MatchId, session: SessionDep, reader: ReaderDep) -> MatchPublic:
    """One match; a forfeit's words only on the reader's own seats."""
    return match_queries.match(session, match_id, reader.id if reader else None)


@router.get(
    "/matches/{match_id}/log",
    responses={
        **LOG_READ,
        200: {
            "description": "The match log (docs/match-log.md): the full log once its seed"
            " and hands are public; until then, with an owner's token, the view of the"
            " seats that owner's bots held (their own cards), else its public view",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
    },
)
def get_log(match_id: MatchId, session: SessionDep, reader: ReaderDep) -> JSONResponse:
    log, shown = match_queries.readable_log(session, match_id, reader.id if reader else None)
    # with a token it may hold the reader's own cards: never kept
    kept = {"Cache-Control": "private, no-store"} if reader else until_disclosed(shown)
    return JSONResponse(
        log,
        headers={"Content-Disposition": f'attachment; filename="match-{match_id}.json"', **kept},
    )


@router.get(
    "/matches/{match_id}/replay",
    response_model=Replay,
    responses={**LOG_READ, 401: {"description": "A token that does not work"}},
)
def get_replay(match_id: MatchId, session: SessionDep, reader: ReaderDep) -> Replay:
    """The replay's frames (the match page draws them): every card once the log is
    public; until then, with an owner's token, the cards that owner's bots saw."""
    return match_queries.replay(session, match_id, reader.id if reader else None)
