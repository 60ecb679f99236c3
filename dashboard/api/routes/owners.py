"""An owner's own account: who it is, its bots, and its token (rotate or revoke)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, status

from arena.services import owners as owner_service
from arena.services.views import owners as owner_queries
from arena.services.views.schemas import NewToken, OwnerPublic, OwnSeat, OwnSeatPage, Responses
from dashboard.deps import OwnerDep, PlatformDep, SessionDep

router = APIRouter(tags=["owners"])
NO_TOKEN: Responses = {401: {"description": "No token, or a token that does not work"}}


@router.get("/owners/me", response_model=OwnerPublic, responses=NO_TOKEN)
def me(owner: OwnerDep, platform: PlatformDep) -> OwnerPublic:
    """The owner whose token this is, and its bots."""
    return OwnerPublic.model_validate(owner_service.described(platform.db, owner.id))


@router.get("/owners/me/seats", response_model=list[OwnSeat], responses=NO_TOKEN)
def my_seats(
    owner: OwnerDep,
    session: SessionDep,
    bot: str | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[OwnSeat]:
    """The owner's bots' seats in recorded matches, newest first, with each bot's output
    during the match: visible to the owner only."""
    return owner_queries.owner_seats(session, owner.id, bot, limit)


@router.get("/owners/me/matches", response_model=OwnSeatPage, responses=NO_TOKEN)
def my_matches(
    owner: OwnerDep,
    session: SessionDep,
    bot: str | None = None,
    version: Annotated[
        int | None, Query(ge=1, le=2**31 - 1, description="A version of ``bot``")
    ] = None,
    result: Annotated[
        Literal["won", "lost"] | None,
        Query(description="won: first place; lost: any place after the first"),
    ] = None,
    forfeit: Annotated[bool | None, Query(description="Only seats that forfeited (or not)")] = None,
    competition: Annotated[str | None, Query(description="Played in it, any season")] = None,
    tournament: str | None = None,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=200)] = 50,
) -> OwnSeatPage:
    """The owner's bots' seats in recorded matches, newest first, a page at a time,
    filtered by bot and version, result, forfeit, competition or tournament."""
    only = owner_queries.SeatFilter(bot, version, result, forfeit, competition, tournament)
    return owner_queries.seat_page(session, owner.id, only, page, per_page)


@router.post("/owners/me/token", response_model=NewToken, responses=NO_TOKEN)
def rotate(owner: OwnerDep, platform: PlatformDep) -> NewToken:
    """A new token, shown once; the one used for this request stops working."""
    token = owner_service.rotate(platform.db, owner.name)
    return NewToken(token=token)


@router.delete("/owners/me/token", status_code=status.HTTP_204_NO_CONTENT, responses=NO_TOKEN)
def revoke(owner: OwnerDep, platform: PlatformDep) -> None:
    """No token works for this owner any more (the operator can rotate one in)."""
    owner_service.revoke(platform.db, owner.name)
