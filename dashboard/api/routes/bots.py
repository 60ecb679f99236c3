"""Bots and their versions."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, status

from arena.store import bots as bot_store
from arena.store.bots import StoreError
from arena.store.models import BotKind
from dashboard import queries
from dashboard.deps import OwnerDep, PlatformDep, SessionDep
from dashboard.schemas import BotCreate, BotPublic, VersionCreate, VersionPublic

router = APIRouter(tags=["bots"])


@router.get("/bots", response_model=list[BotPublic])
def list_bots(session: SessionDep) -> list[dict]:
    return queries.bots(session)


@router.get(
    "/bots/{name}", response_model=BotPublic, responses={404: {"description": "No such bot"}}
)
def get_bot(name: str, session: SessionDep) -> dict:
    try:
        return queries.bot(session, name)
    except StoreError as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None


@router.post(
    "/bots",
    response_model=BotPublic,
    status_code=status.HTTP_201_CREATED,
    responses={400: {"description": "Invalid bot"}, 401: {"description": "No token"}},
)
def create_bot(body: BotCreate, owner: OwnerDep, platform: PlatformDep) -> dict:
    try:
        platform.db.transaction(
            lambda s: bot_store.add_bot(
                s, body.name, BotKind(body.kind), body.target, owner_id=owner.id
            )
        )
    except StoreError as error:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(error)) from None
    with platform.db.read() as session:
        return queries.bot(session, body.name)


@router.post(
    "/bots/{name}/versions",
    response_model=VersionPublic,
    status_code=status.HTTP_201_CREATED,
    responses={
        400: {"description": "Invalid version"},
        401: {"description": "No token"},
        403: {"description": "Another owner's bot"},
        404: {"description": "No such bot"},
    },
)
def submit_version(name: str, body: VersionCreate, owner: OwnerDep, platform: PlatformDep) -> dict:
    try:
        version = platform.db.transaction(
            lambda s: bot_store.add_version(
                s, name, BotKind(body.kind), body.target, owner_id=owner.id
            )
        )
    except PermissionError as error:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(error)) from None
    except StoreError as error:
        code = status.HTTP_404_NOT_FOUND if "no bot named" in str(error) else 400
        raise HTTPException(code, str(error)) from None
    return {
        "number": version.number,
        "kind": version.kind.value,
        "target": version.target,
        "active": version.active,
        "created_at": version.created_at.isoformat(),
    }
