"""The JSON API under /api/v1."""

from fastapi import APIRouter

from dashboard.api.routes import (
    abtests,
    accounts,
    admin,
    bots,
    competitions,
    matches,
    owners,
    scrimmages,
    tables,
    teams,
    tournaments,
)

#: where the API's routes are served
PREFIX = "/api/v1"
router = APIRouter(prefix=PREFIX)
router.include_router(bots.router)
router.include_router(tournaments.router)
router.include_router(competitions.router)
router.include_router(abtests.router)
router.include_router(matches.router)
router.include_router(owners.router)
router.include_router(tables.router)
router.include_router(scrimmages.router)
router.include_router(accounts.router)
router.include_router(admin.router)
router.include_router(teams.router)
