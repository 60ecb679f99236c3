"""The dashboard and the public API: ``create_app()``; ``arena dashboard`` serves it."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from arena.platform import Platform
from arena.settings import Settings
from dashboard import api, errors, pages


def create_app(settings: Settings | None = None) -> FastAPI:
    app = FastAPI(
        title="Arena",
        version="1",
        description="Bot tournaments for Verish' Ne Verish': bots, tournaments, "
        "leaderboards, matches and their logs.",
    )
    app.state.platform = Platform(settings)
    errors.install(app)
    app.include_router(api.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=Path(__file__).parent / "static"), name="static")
    return app
