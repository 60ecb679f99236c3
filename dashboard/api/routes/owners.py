"""An owner's own account: who it is, its bots, and its token (rotate or revoke)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel

from arena.store import owners
from arena.store.models import Owner
from dashboard.deps import OwnerDep, PlatformDep, SessionDep
from dashboard.queries import owners as owner_queries
from dashboard.schemas import Responses, SeatResult

router = APIRouter(tags=["owners"])
NO_TOKEN: Responses = {401: {"description": "No token, or a token that does not work"}}


class OwnerPublic(BaseModel):
    name: str
    created_at: str
    token: str  # "active" or "revoked": never the token itself
    bots: list[str]


class NewToken(BaseModel):
    token: str


class OwnSeat(SeatResult):
    """One of the owner's seats in a recorded match, with what its bot printed."""

    match: int
    tournament: str
    finished_at: str | None
    #: what the bot printed while playing this match (its last 4 KB; uploaded bots
    #: only: a bot running elsewhere keeps its own output). A warm process may play
    #: several matches of the same version at once, so lines of those may be mixed in.
    output: str | None


@router.get("/owners/me", response_model=OwnerPublic, responses=NO_TOKEN)
def me(owner: OwnerDep, session: SessionDep) -> dict:
    """The owner whose token this is, and its bots."""
    return owners.describe(session, session.get_one(Owner, owner.id))


@router.get("/owners/me/seats", response_model=list[OwnSeat], responses=NO_TOKEN)
def my_seats(
    owner: OwnerDep,
    session: SessionDep,
    bot: str | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[dict]:
    """The owner's bots' seats in recorded matches, newest first, with each bot's output
    during the match: visible to the owner only."""
    return owner_queries.owner_seats(session, owner.id, bot, limit)


@router.post("/owners/me/token", response_model=NewToken, responses=NO_TOKEN)
def rotate(owner: OwnerDep, platform: PlatformDep) -> dict:
    """A new token, shown once; the one used for this request stops working."""
    token = platform.db.transaction(lambda s: owners.rotate_token(s, s.get_one(Owner, owner.id)))
    return {"token": token}


@router.delete("/owners/me/token", status_code=status.HTTP_204_NO_CONTENT, responses=NO_TOKEN)
def revoke(owner: OwnerDep, platform: PlatformDep) -> None:
    """No token works for this owner any more (the operator can rotate one in)."""
    platform.db.transaction(lambda s: owners.revoke_token(s, s.get_one(Owner, owner.id)))
