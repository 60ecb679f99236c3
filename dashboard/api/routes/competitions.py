"""Competitions: the standing ladders every qualified version joins. Anyone reads them;
the operator (``ARENA_OPERATOR_TOKEN``) opens, pauses, resumes and closes them, here or
with ``arena competition``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, status

from arena.base.states import CompetitionStatus
from arena.engine import Ruleset
from arena.services import competitions as competition_service
from arena.services.retention import Retention
from arena.services.views.schemas import (
    CompetitionCreate,
    LeaderboardRow,
    LogRetentionIn,
    PaceIn,
    Responses,
)
from dashboard.deps import OperatorDep, OperatorNameDep, PlatformDep

router = APIRouter(tags=["competitions"])


def shown(summary: dict[str, Any]) -> dict[str, Any]:
    """A competition's summary as the API shows it: its leaderboard's figures rounded."""
    board = [LeaderboardRow.model_validate(row).model_dump() for row in summary["leaderboard"]]
    return {**summary, "leaderboard": board}


#: what the operator's calls may answer besides success
OPERATOR: Responses = {
    401: {"description": "Not the operator's token"},
    403: {"description": "The operator's API is off (no ARENA_OPERATOR_TOKEN)"},
}
CHANGED: Responses = {
    **OPERATOR,
    404: {"description": "No such competition"},
    409: {"description": "Closed"},
}


@router.get("/competitions")
def list_competitions(platform: PlatformDep) -> list[dict[str, Any]]:
    return competition_service.listing(platform.db)


@router.get("/competitions/{name}", responses={404: {"description": "No such competition"}})
def get_competition(name: str, platform: PlatformDep) -> dict[str, Any]:
    """Its season, status and standings."""
    return shown(competition_service.summary(platform.db, name))


@router.post(
    "/competitions",
    status_code=status.HTTP_201_CREATED,
    dependencies=[OperatorDep],
    responses={**OPERATOR, 400: {"description": "Invalid"}, 409: {"description": "Exists"}},
)
def create_competition(body: CompetitionCreate, platform: PlatformDep) -> dict[str, Any]:
    """Open a competition: it plays as soon as a table's worth of bots entered."""
    ruleset = Ruleset.parse(body.rules.preset, body.rules.options)
    request = competition_service.CompetitionRequest(
        body.name, ruleset, body.table_size, body.tables, body.bots, body.deadline,
        body.time_bank, body.default, body.opens_at, body.closes_at, body.format, body.pace,
        body.rating, Retention(body.log_days, body.log_top),
    )  # fmt: skip
    return shown(competition_service.create(platform.db, request))


def _status_route(action: str, to: CompetitionStatus, doc: str) -> None:
    def change(name: str, actor: OperatorNameDep, platform: PlatformDep) -> dict[str, Any]:
        return shown(competition_service.set_status(platform.db, name, to, actor))

    change.__doc__ = doc
    change.__name__ = f"{action}_competition"
    router.post(f"/competitions/{{name}}/{action}", responses=CHANGED)(change)


_status_route("pause", CompetitionStatus.PAUSED, "No new tables; those in play finish.")
_status_route("resume", CompetitionStatus.OPEN, "Seat tables again.")
_status_route("close", CompetitionStatus.CLOSED, "End the season: its standings are final.")


@router.post("/competitions/{name}/new-season", responses=CHANGED)
def new_season(name: str, actor: OperatorNameDep, platform: PlatformDep) -> dict[str, Any]:
    """Close the season in play and open the next: the same bots, fresh ratings."""
    return shown(competition_service.new_season(platform.db, name, actor))


@router.post("/competitions/{name}/pace", responses=CHANGED)
def set_pace(
    name: str, body: PaceIn, actor: OperatorNameDep, platform: PlatformDep
) -> dict[str, Any]:
    """How many tables a minute it seats once every rating is settled (null: unpaced,
    every table kept in play)."""
    return shown(competition_service.set_pace(platform.db, name, body.pace, actor))


@router.post("/competitions/{name}/logs", responses=CHANGED)
def set_log_retention(
    name: str, body: LogRetentionIn, actor: OperatorNameDep, platform: PlatformDep
) -> dict[str, Any]:
    """How long its matches' logs are kept (``days``; null: for ever), and whose are
    all kept (its best ``top`` entries'). Results, ratings and totals stay for ever."""
    retention = Retention(body.days, body.top)
    return shown(competition_service.set_retention(platform.db, name, retention, actor))
