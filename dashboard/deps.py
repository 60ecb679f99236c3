"""Dependencies, declared once as types (``SessionDep``, ``OwnerDep``, ``PlatformDep``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from arena.platform import Platform
from arena.store.models import Owner
from arena.store.owners import authenticate


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
) -> Owner:
    owner = authenticate(session, credentials.credentials if credentials else "")
    if owner is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "a valid owner token is required",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return owner


OwnerDep = Annotated[Owner, Depends(get_owner)]
