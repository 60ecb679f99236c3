"""Bots and their versions; new versions are qualified before they are ranked."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import cast

from fastapi import APIRouter, status

from arena.base.endpoints import EndpointError, pinned_public
from arena.base.errors import Conflict, Invalid, NotFound
from arena.base.people import Someone
from arena.base.states import AfterQualifying, BotKind
from arena.platform import Platform
from arena.platform.submission import submit
from arena.services import owners as owner_service
from arena.services import releases as release_service
from arena.services import uploads
from arena.services.views import bots as bot_queries
from arena.services.views.schemas import (
    BotCreate,
    BotPublic,
    Consent,
    LiveVersion,
    Promotion,
    Responses,
    SubmissionPublic,
    SubmissionStatus,
    VersionCreate,
)
from dashboard.deps import ActorDep, OwnerDep, PlatformDep, ReaderDep, SessionDep

router = APIRouter(tags=["bots"])
WRITE_ERRORS: Responses = {
    400: {"description": "Invalid bot"},
    401: {"description": "No token"},
    403: {"description": "Another owner's bot, or one only the operator may change"},
    413: {"description": "The body is over the cap"},
    429: {"description": "Too many submissions: see Retry-After"},
}


@router.get("/bots", response_model=list[BotPublic])
def list_bots(session: SessionDep) -> list[BotPublic]:
    return bot_queries.bots(session)


@router.get(
    "/bots/{name}", response_model=BotPublic, responses={404: {"description": "No such bot"}}
)
def get_bot(name: str, session: SessionDep, reader: ReaderDep) -> BotPublic:
    """A bot and its versions; a rejected version's ``detail`` (what the bot printed, its
    traceback) only with its owner's token."""
    return bot_queries.bot(session, name, reader=reader)


@router.post(
    "/bots",
    response_model=SubmissionPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses={**WRITE_ERRORS, 409: {"description": "The bot exists"}},
)
def create_bot(
    body: BotCreate, owner: OwnerDep, platform: PlatformDep, session: SessionDep
) -> SubmissionPublic:
    """Register a bot with its first version (qualified like every version)."""
    try:
        bot_queries.bot(session, body.name)
    except NotFound:
        return _submit(platform, body.name, body, owner)
    raise Conflict(f"a bot named {body.name!r} exists already")


@router.post(
    "/bots/{name}/versions",
    response_model=SubmissionPublic,
    status_code=status.HTTP_202_ACCEPTED,
    responses={**WRITE_ERRORS, 404: {"description": "No such bot"}},
)
def submit_version(
    name: str, body: VersionCreate, owner: OwnerDep, platform: PlatformDep, session: SessionDep
) -> SubmissionPublic:
    """Submit a new version: it replaces the active one once it qualifies."""
    bot_queries.bot(session, name)  # NotFound: 404
    return _submit(platform, name, body, owner)


RELEASE_ERRORS: Responses = {
    400: {"description": "No such version, or one that never qualified"},
    401: {"description": "No token"},
    403: {"description": "Another owner's bot"},
    404: {"description": "No such bot"},
}


@router.post("/bots/{name}/promote", response_model=LiveVersion, responses=RELEASE_ERRORS)
def promote(
    name: str, body: Promotion, actor: ActorDep, platform: PlatformDep, session: SessionDep
) -> LiveVersion:
    """Make a qualified version the live one (an older one too: a rollback); the
    competitions the bot plays in seat it from now on."""
    bot_queries.bot_exists(session, name)
    spec = f"{name}:{body.version}"
    return _released(platform, release_service.promote(platform.db, spec, _id(actor)))


@router.post("/bots/{name}/rollback", response_model=LiveVersion, responses=RELEASE_ERRORS)
def rollback(name: str, actor: ActorDep, platform: PlatformDep, session: SessionDep) -> LiveVersion:
    """Make the version live before the live one live again."""
    bot_queries.bot_exists(session, name)
    return _released(platform, release_service.rollback(platform.db, name, _id(actor)))


@router.patch("/bots/{name}/consent", response_model=BotPublic, responses=RELEASE_ERRORS)
def consent(
    name: str, body: Consent, actor: ActorDep, platform: PlatformDep, session: SessionDep
) -> BotPublic:
    """What the owner allows: ``people`` (that people play the bot at tables) and
    ``scrimmages`` (that other owners choose it as a scrimmage's rival)."""
    release_service.set_consent(platform.db, name, _id(actor), body.people, body.scrimmages)
    with platform.db.read() as fresh:
        return bot_queries.bot(fresh, name)


def _id(actor: Someone | None) -> int | None:
    return actor.id if actor is not None else None


def _released(platform: Platform, live: release_service.LiveVersion) -> LiveVersion:
    platform.send(live.jobs)  # else a worker's next pass seats them
    return LiveVersion(
        bot=live.bot,
        version=live.version,
        live_since=live.live_since,
        competitions=live.competitions,
    )


def _submit(platform: Platform, name: str, body: VersionCreate, owner: Someone) -> SubmissionPublic:
    owner_service.check_submission_rate(platform.db, owner, platform.settings.submission_rate)
    owner_id = owner.id
    team = body.team if isinstance(body, BotCreate) else None
    if body.kind in ("python", "archive"):
        if body.kind == "python" and not body.source.strip():
            raise Invalid("a python version needs its source")
        if body.kind == "archive" and not body.archive.strip():
            raise Invalid("an archive version needs its archive (base64 .tar.gz or .zip)")
        with tempfile.TemporaryDirectory() as folder:
            if body.kind == "archive":
                path = uploads.unpacked(body.archive, Path(folder))
            else:
                path = Path(folder) / "bot.py"
                path.write_text(body.source)
            result = submit(
                platform,
                name,
                BotKind.PATH,
                str(path),
                owner_id,
                queued=True,
                competition=body.competition,
                max_matches=body.max_matches,
                after=AfterQualifying(body.after),
                team=team,
            )
    else:
        if not body.target.strip():
            raise Invalid(f"a {body.kind} version needs its target")
        target = body.target.strip()
        if body.kind == "endpoint" and not platform.settings.allow_private_endpoints:
            try:
                target = pinned_public(target)
            except EndpointError as error:
                raise Invalid(str(error)) from None
        result = submit(
            platform,
            name,
            BotKind(body.kind),
            target,
            owner_id,
            queued=True,
            competition=body.competition,
            max_matches=body.max_matches,
            after=AfterQualifying(body.after),
            team=team,
        )
    return SubmissionPublic(
        bot=result.bot,
        version=result.version,
        status=cast(SubmissionStatus, result.status),
        accepted=result.accepted,
        reason=result.reason,
    )
