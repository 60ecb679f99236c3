"""Bots and their versions; new versions are qualified before they are ranked."""

from __future__ import annotations

import tempfile
from pathlib import Path

from fastapi import APIRouter, HTTPException, status

from arena.platform import Platform, PlatformError
from arena.store.bots import StoreError
from arena.store.models import BotKind
from arena.submission import submit
from dashboard import queries
from dashboard.deps import OwnerDep, PlatformDep, SessionDep
from dashboard.schemas import BotCreate, BotPublic, SubmissionPublic, VersionCreate

router = APIRouter(tags=["bots"])
WRITE_ERRORS = {
    400: {"description": "Invalid bot"},
    401: {"description": "No token"},
    403: {"description": "Another owner's bot"},
}


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
    response_model=SubmissionPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses={**WRITE_ERRORS, 409: {"description": "The bot exists"}},
)
def create_bot(
    body: BotCreate, owner: OwnerDep, platform: PlatformDep, session: SessionDep
) -> dict:
    """Register a bot with its first version (qualified like every version)."""
    try:
        queries.bot(session, body.name)
    except StoreError:
        return _submit(platform, body.name, body, owner.id)
    raise HTTPException(status.HTTP_409_CONFLICT, f"a bot named {body.name!r} exists already")


@router.post(
    "/bots/{name}/versions",
    response_model=SubmissionPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses={**WRITE_ERRORS, 404: {"description": "No such bot"}},
)
def submit_version(
    name: str, body: VersionCreate, owner: OwnerDep, platform: PlatformDep, session: SessionDep
) -> dict:
    """Submit a new version: it replaces the active one once it qualifies."""
    try:
        queries.bot(session, name)
    except StoreError as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None
    return _submit(platform, name, body, owner.id)


def _submit(platform: Platform, name: str, body: VersionCreate, owner_id: int) -> dict:
    try:
        if body.kind == "python":
            if not body.source.strip():
                raise StoreError("a python version needs its source")
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "bot.py"
                path.write_text(body.source)
                result = submit(platform, name, BotKind.PATH, str(path), owner_id, queued=True)
        else:
            if not body.target.strip():
                raise StoreError(f"a {body.kind} version needs its target")
            result = submit(platform, name, BotKind(body.kind), body.target, owner_id, queued=True)
    except PermissionError as error:
        raise HTTPException(status.HTTP_403_FORBIDDEN, str(error)) from None
    except StoreError as error:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, str(error)) from None
    except PlatformError as error:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, str(error)) from None
    return {
        "bot": result.bot,
        "version": result.version,
        "status": result.status,
        "accepted": result.accepted,
        "reason": result.reason,
    }
