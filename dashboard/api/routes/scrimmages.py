"""Scrimmages: an owner's unranked matches of their bot against rivals they choose."""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, status

from arena.services import scrimmages as scrimmage_service
from arena.services.scrimmages import Scrimmage
from arena.services.views.schemas import Responses, ScrimmageCreate
from dashboard.deps import OwnerDep, PlatformDep, SessionDep

router = APIRouter(tags=["scrimmages"])
NO_TOKEN: Responses = {401: {"description": "No token, or a token that does not work"}}


@router.post(
    "/scrimmages",
    response_model=Scrimmage,
    status_code=status.HTTP_201_CREATED,
    responses={
        **NO_TOKEN,
        400: {"description": "Unknown bot or version, over the limits, a bot twice"},
        403: {"description": "Another owner's bot, or a rival whose owner does not allow it"},
    },
)
def create_scrimmage(body: ScrimmageCreate, owner: OwnerDep, platform: PlatformDep) -> Scrimmage:
    """Queue the matches at once: they play after ranked work, within the owner's
    private limits; the results are the owner's (``GET /owners/me/scrimmages``)."""
    asked = body.request()
    made = scrimmage_service.create(platform.db, asked, owner, platform.settings.private_limits)
    return replace(made, queued=platform.start_tournament(made.name))


@router.get("/owners/me/scrimmages", response_model=list[Scrimmage], responses=NO_TOKEN)
def my_scrimmages(owner: OwnerDep, session: SessionDep) -> list[Scrimmage]:
    """The owner's scrimmages, the newest first, with each bot's results."""
    return scrimmage_service.of_owner(session, owner)
