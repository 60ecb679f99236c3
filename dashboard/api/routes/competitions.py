"""Competitions: the standing ladders every qualified version joins (read only: the
operator opens, pauses and closes them with ``arena competition``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from arena.store import competitions
from dashboard.deps import SessionDep

router = APIRouter(tags=["competitions"])


@router.get("/competitions")
def list_competitions(session: SessionDep) -> list[dict[str, Any]]:
    return competitions.listing(session)


@router.get("/competitions/{name}", responses={404: {"description": "No such competition"}})
def get_competition(name: str, session: SessionDep) -> dict[str, Any]:
    """Its season, status and standings."""
    return competitions.summary(session, competitions.get(session, name))
