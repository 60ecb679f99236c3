"""An owner's own account: who it is, its bots, and its token (rotate or revoke)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, status

from arena.store import owners
from arena.store.models import Owner
from dashboard.deps import OwnerDep, PlatformDep, SessionDep
from dashboard.queries import owners as owner_queries
from dashboard.schemas import NewToken, OwnerPublic, OwnSeat, Responses

router = APIRouter(tags=["owners"])
NO_TOKEN: Responses = {401: {"description": "No token, or a token that does not work"}}


@router.get("/owners/me", response_model=OwnerPublic, responses=NO_TOKEN)
def me(owner: OwnerDep, session: SessionDep) -> OwnerPublic:
    """The owner whose token this is, and its bots."""
    return OwnerPublic.model_validate(owners.describe(session, session.get_one(Owner, owner.id)))


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


@router.post("/owners/me/token", response_model=NewToken, responses=NO_TOKEN)
def rotate(owner: OwnerDep, platform: PlatformDep) -> NewToken:
    """A new token, shown once; the one used for this request stops working."""
    token = platform.db.transaction(lambda s: owners.rotate_token(s, s.get_one(Owner, owner.id)))
    return NewToken(token=token)


@router.delete("/owners/me/token", status_code=status.HTTP_204_NO_CONTENT, responses=NO_TOKEN)
def revoke(owner: OwnerDep, platform: PlatformDep) -> None:
    """No token works for this owner any more (the operator can rotate one in)."""
    platform.db.transaction(lambda s: owners.revoke_token(s, s.get_one(Owner, owner.id)))
