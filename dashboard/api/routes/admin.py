"""The operator's moderation through the API (arena.services.operators): suspend an
account and lift it, with a reason, and read the audit log. The operator's token, or an
account with the operator's role, may."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from arena.services import operators as operator_service
from arena.services.teams import TeamPublic
from arena.services.views.schemas import Responses
from dashboard.deps import OperatorNameDep, PlatformDep, SessionDep, clock

router = APIRouter(prefix="/admin", tags=["admin"])
OPERATORS_ONLY: Responses = {
    401: {"description": "Not the operator"},
    403: {"description": "Not the operator"},
}


class Reason(BaseModel):
    reason: str = Field(min_length=1, max_length=operator_service.MAX_REASON)


@router.post(
    "/accounts/{name}/suspend",
    response_model=operator_service.AccountState,
    responses={**OPERATORS_ONLY, 404: {}, 409: {"description": "Suspended already"}},
)
def suspend(
    name: str, body: Reason, request: Request, actor: OperatorNameDep, platform: PlatformDep
) -> operator_service.AccountState:
    """Suspend an account: its sessions end, its tokens and password stop working."""
    return operator_service.suspend(platform.db, name, body.reason, actor, clock(request))


@router.post(
    "/accounts/{name}/lift",
    response_model=operator_service.AccountState,
    responses={**OPERATORS_ONLY, 404: {}, 409: {"description": "Not suspended"}},
)
def lift(
    name: str, body: Reason, request: Request, actor: OperatorNameDep, platform: PlatformDep
) -> operator_service.AccountState:
    """Lift an account's suspension."""
    return operator_service.lift(platform.db, name, body.reason, actor, clock(request))


@router.get(
    "/accounts", response_model=list[operator_service.AccountState], responses=OPERATORS_ONLY
)
def find_accounts(
    actor: OperatorNameDep,
    session: SessionDep,
    starting: Annotated[str, Query(max_length=100)] = "",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[operator_service.AccountState]:
    """Accounts whose names start with ``starting``: their role and suspension."""
    return operator_service.accounts(session, starting, limit)


@router.get("/bots", response_model=list[operator_service.FoundBot], responses=OPERATORS_ONLY)
def find_bots(
    actor: OperatorNameDep,
    session: SessionDep,
    starting: Annotated[str, Query(max_length=100)] = "",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[operator_service.FoundBot]:
    """Bots whose names start with ``starting``: their team, versions and any
    disqualification."""
    return operator_service.find_bots(session, starting, limit)


@router.get("/teams", response_model=list[TeamPublic], responses=OPERATORS_ONLY)
def find_teams(
    actor: OperatorNameDep,
    session: SessionDep,
    starting: Annotated[str, Query(max_length=100)] = "",
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[TeamPublic]:
    """Teams whose names start with ``starting``: their members and bots."""
    return operator_service.find_teams(session, starting, limit)


@router.get("/audit", response_model=list[operator_service.AuditRow], responses=OPERATORS_ONLY)
def audit(actor: OperatorNameDep, session: SessionDep) -> list[operator_service.AuditRow]:
    """Every operator action, the newest first: who, what, on what, when and why."""
    return operator_service.audit_log(session)


@router.post(
    "/bots/{name}/disqualify",
    response_model=operator_service.Disqualified,
    responses={**OPERATORS_ONLY, 400: {}, 404: {}, 409: {"description": "Disqualified already"}},
)
def disqualify_bot(
    name: str, body: Reason, request: Request, actor: OperatorNameDep, platform: PlatformDep
) -> operator_service.Disqualified:
    """Disqualify a bot and every version of it: off every leaderboard at once, at no
    new table, no new version taken; its team reads the reason."""
    return operator_service.disqualify(platform.db, name, body.reason, actor, clock(request))


@router.post(
    "/bots/{name}/versions/{number}/disqualify",
    response_model=operator_service.Disqualified,
    responses={**OPERATORS_ONLY, 400: {}, 404: {}, 409: {"description": "Disqualified already"}},
)
def disqualify_version(
    name: str,
    number: int,
    body: Reason,
    request: Request,
    actor: OperatorNameDep,
    platform: PlatformDep,
) -> operator_service.Disqualified:
    """Disqualify one version: off every leaderboard, at no new table."""
    spec = f"{name}:{number}"
    return operator_service.disqualify(platform.db, spec, body.reason, actor, clock(request))


@router.post(
    "/matches/{match_id}/void",
    response_model=operator_service.Voided,
    responses={**OPERATORS_ONLY, 400: {}, 404: {}, 409: {"description": "Not a result"}},
)
def void_match(
    match_id: int, body: Reason, request: Request, actor: OperatorNameDep, platform: PlatformDep
) -> operator_service.Voided:
    """Void a recorded match: its result leaves the ratings, recomputed in order."""
    return operator_service.void(platform.db, match_id, body.reason, actor, clock(request))
