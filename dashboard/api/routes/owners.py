"""An owner's own account: who it is, its bots, and its token (rotate or revoke)."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import BaseModel

from arena.store import owners
from arena.store.models import Owner
from dashboard.deps import OwnerDep, PlatformDep, SessionDep

router = APIRouter(tags=["owners"])
NO_TOKEN = {401: {"description": "No token, or a token that does not work"}}


class OwnerPublic(BaseModel):
    name: str
    created_at: str
    token: str  # "active" or "revoked": never the token itself
    bots: list[str]


class NewToken(BaseModel):
    token: str


@router.get("/owners/me", response_model=OwnerPublic, responses=NO_TOKEN)
def me(owner: OwnerDep, session: SessionDep) -> dict:
    """The owner whose token this is, and its bots."""
    return owners.describe(session, session.get(Owner, owner.id))


@router.post("/owners/me/token", response_model=NewToken, responses=NO_TOKEN)
def rotate(owner: OwnerDep, platform: PlatformDep) -> dict:
    """A new token, shown once; the one used for this request stops working."""
    token = platform.db.transaction(lambda s: owners.rotate_token(s, s.get(Owner, owner.id)))
    return {"token": token}


@router.delete("/owners/me/token", status_code=status.HTTP_204_NO_CONTENT, responses=NO_TOKEN)
def revoke(owner: OwnerDep, platform: PlatformDep) -> None:
    """No token works for this owner any more (the operator can rotate one in)."""
    platform.db.transaction(lambda s: owners.revoke_token(s, s.get(Owner, owner.id)))
