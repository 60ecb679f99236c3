"""Dependencies, declared once as types (``SessionDep``, ``OwnerDep``, ``PlatformDep``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from arena.base.people import Caller
from arena.platform import Platform
from arena.services import owners as owner_service


def get_platform(request: Request) -> Platform:
    return request.app.state.platform


PlatformDep = Annotated[Platform, Depends(get_platform)]


def get_session(platform: PlatformDep) -> Iterator[Session]:
    with platform.db.read() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session)]
_bearer = HTTPBearer(auto_error=False, description="An owner's API token")


def get_owner(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    owner = owner_service.caller(session, credentials.credentials if credentials else "")
    if owner is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "a valid owner token is required",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return owner


OwnerDep = Annotated[Caller, Depends(get_owner)]


def get_reader(
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller | None:
    """The owner reading, if a token came with the request (None: anyone); a token that
    does not work is refused, never taken for no token."""
    return None if credentials is None else get_owner(session, credentials)


#: the owner whose token came with the request, or None without a token
ReaderDep = Annotated[Caller | None, Depends(get_reader)]


def _is_operator(platform: Platform, token: str) -> bool:
    expected = platform.settings.operator_token
    if not (expected and token):
        return False
    return secrets.compare_digest(token.encode(), expected.encode())


def get_operator(
    platform: PlatformDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Only the operator's token (``ARENA_OPERATOR_TOKEN``) passes."""
    if platform.settings.operator_token is None:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "the operator's API is off: the platform was started without ARENA_OPERATOR_TOKEN",
        )
    if not _is_operator(platform, credentials.credentials if credentials else ""):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "the operator's token is required",
            headers={"WWW-Authenticate": "Bearer"},
        )


OperatorDep = Depends(get_operator)


def get_actor(
    platform: PlatformDep,
    session: SessionDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller | None:
    """Who calls: the operator (None) with the operator's token, else the token's owner."""
    token = credentials.credentials if credentials else ""
    if _is_operator(platform, token):
        return None
    return get_owner(session, credentials)


#: an owner, or the operator (None)
ActorDep = Annotated[Caller | None, Depends(get_actor)]
