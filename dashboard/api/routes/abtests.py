"""A/B tests: create (an owner's own versions), start, stop, and where one stands."""

from __future__ import annotations

from fastapi import APIRouter, status

from arena.services import abtests as abtest_service
from arena.services.abtests import AbTestState
from arena.services.views.schemas import AbTestCreate, Responses, Started
from dashboard.deps import OwnerDep, PlatformDep, SessionDep

router = APIRouter(tags=["abtests"])
NOT_FOUND: Responses = {404: {"description": "No such A/B test"}}
NOT_YOURS: Responses = {401: {"description": "No token"}, 403: {"description": "Not your test"}}


@router.get("/abtests/{name}", response_model=AbTestState, responses=NOT_FOUND)
def get_abtest(name: str, session: SessionDep) -> AbTestState:
    return abtest_service.status(session, name)


@router.post(
    "/abtests",
    response_model=AbTestState,
    status_code=status.HTTP_201_CREATED,
    responses={
        400: {"description": "Unknown bot or version, the same version twice, bad bounds"},
        401: {"description": "No token"},
        403: {"description": "Another owner's bot"},
    },
)
def create_abtest(body: AbTestCreate, owner: OwnerDep, platform: PlatformDep) -> AbTestState:
    """An owner tests their own versions (any that qualified, active or not) against a
    field of their bots and the samples; the operator tests any from the CLI."""
    request = body.request()
    abtest_service.create(platform.db, request, owner, platform.settings.private_limits)
    with platform.db.read() as session:
        return abtest_service.status(session, body.name)


@router.post(
    "/abtests/{name}/start",
    response_model=Started,
    responses={**NOT_FOUND, **NOT_YOURS, 409: {"description": "Over already"}},
)
def start_abtest(name: str, owner: OwnerDep, platform: PlatformDep) -> Started:
    return Started(name=name, queued=platform.start_abtest(name, owner))


@router.post(
    "/abtests/{name}/stop",
    response_model=Started,
    responses={**NOT_FOUND, **NOT_YOURS, 409: {"description": "Over already"}},
)
def stop_abtest(name: str, owner: OwnerDep, platform: PlatformDep) -> Started:
    """Stop the test undecided; ``queued`` is the number of queued matches withdrawn."""
    stopped = abtest_service.stop(platform.db, name, owner)
    return Started(name=name, queued=stopped)
