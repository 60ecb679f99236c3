"""Teams (arena.services.teams): make one, invite by a one-time code, join, leave,
remove a member; a team's public page (members, bots) and the caller's teams."""

from __future__ import annotations

from fastapi import APIRouter, Request, status
from pydantic import BaseModel, Field

from arena.services import teams as team_service
from arena.services.views.schemas import Name, Responses
from dashboard.deps import OwnerDep, PlatformDep, SessionDep, clock

router = APIRouter(tags=["teams"])
MEMBERS_ONLY: Responses = {
    401: {"description": "No token or session"},
    403: {"description": "Not the team's captain (or not in it)"},
    404: {"description": "No such team, or not a member"},
}


class TeamCreate(BaseModel):
    name: str = Name


class Join(BaseModel):
    code: str = Field(min_length=1, max_length=100)


@router.post(
    "/teams",
    response_model=team_service.TeamPublic,
    status_code=status.HTTP_201_CREATED,
    responses={**MEMBERS_ONLY, 409: {"description": "The name is taken"}},
)
def create_team(
    body: TeamCreate, owner: OwnerDep, platform: PlatformDep
) -> team_service.TeamPublic:
    """A new team, with the caller as its captain."""
    return team_service.create(platform.db, owner, body.name)


@router.get("/account/teams", response_model=list[team_service.TeamPublic], responses=MEMBERS_ONLY)
def my_teams(owner: OwnerDep, session: SessionDep) -> list[team_service.TeamPublic]:
    """The teams the caller is in."""
    return team_service.mine(session, owner)


@router.get(
    "/teams/{name}",
    response_model=team_service.TeamPublic,
    responses={404: {"description": "No such team"}},
)
def get_team(name: str, session: SessionDep) -> team_service.TeamPublic:
    """A team's members and bots (public)."""
    return team_service.show(session, name)


@router.post(
    "/teams/{name}/invites",
    response_model=team_service.Invite,
    status_code=status.HTTP_201_CREATED,
    responses=MEMBERS_ONLY,
)
def invite(
    name: str, request: Request, owner: OwnerDep, platform: PlatformDep
) -> team_service.Invite:
    """A one-time code that makes whoever uses it a member (shown once; the captain's)."""
    return team_service.invite(platform.db, owner, name, clock(request))


@router.post(
    "/teams/join",
    response_model=team_service.TeamPublic,
    responses={
        **MEMBERS_ONLY,
        400: {"description": "The invitation has expired"},
        409: {"description": "Used already, or already a member"},
    },
)
def join(
    body: Join, request: Request, owner: OwnerDep, platform: PlatformDep
) -> team_service.TeamPublic:
    """Join the team an invitation names (a code works once)."""
    return team_service.join(platform.db, owner, body.code, clock(request))


@router.post(
    "/teams/{name}/leave",
    response_model=team_service.TeamPublic,
    responses={**MEMBERS_ONLY, 409: {"description": "The last member"}},
)
def leave(name: str, owner: OwnerDep, platform: PlatformDep) -> team_service.TeamPublic:
    """Leave the team (a captain hands it to the member who joined first)."""
    return team_service.leave(platform.db, owner, name)


@router.delete(
    "/teams/{name}/members/{member}",
    response_model=team_service.TeamPublic,
    responses=MEMBERS_ONLY,
)
def remove(
    name: str, member: str, owner: OwnerDep, platform: PlatformDep
) -> team_service.TeamPublic:
    """The captain removes a member."""
    return team_service.remove(platform.db, owner, name, member)
