"""The dashboard and the public API: ``create_app()``; ``arena dashboard`` serves it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path

import fastapi_offline
from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import BaseRoute

from arena.platform import Platform
from arena.platform.settings import Settings
from arena.platform.tables import TableRoom
from arena.services.accounts import WALL_CLOCK
from dashboard import api, errors, oidc, operations, pages, tables, timing
from dashboard.cache import PageCache
from dashboard.limits import BodyLimit
from dashboard.timing import RequestTimer

#: Swagger UI's files, as the fastapi-offline package ships them (version 5: OpenAPI 3.1)
SWAGGER_UI = Path(fastapi_offline.__file__).parent / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    app = FastAPI(
        title="Arena",
        version="1",
        description="Bot tournaments for Verish' Ne Verish': bots, tournaments, "
        "leaderboards, matches and their logs.",
        docs_url=None,  # served below from local files: the default loads them from a CDN
        redoc_url=None,
        lifespan=_lifespan,
        routes=list(site_routes()),
    )
    platform = app.state.platform = Platform(settings)
    app.state.clock = WALL_CLOCK  # accounts' sessions and throttles (a test drives its own)
    app.state.tables = TableRoom(platform.db, platform.artifacts, platform.settings.table_limits)
    app.add_middleware(BodyLimit)  # outside every route: a body over the cap is never read
    seconds = app.state.platform.settings.page_cache_seconds
    app.add_middleware(PageCache, default_seconds=seconds)  # public pages, kept a moment
    errors.install(app)
    app.state.metrics = operations.registry(app.state.platform)
    # outermost: the time a request waited for a kept page counts too
    app.add_middleware(RequestTimer, seconds=timing.histogram(app.state.metrics))
    app.mount("/static/swagger", StaticFiles(directory=SWAGGER_UI), name="swagger")
    app.mount("/static", StaticFiles(directory=Path(__file__).parent / "static"), name="static")
    _offline_docs(app)
    return app


@cache
def site_routes() -> tuple[BaseRoute, ...]:
    """The API's and the pages' routes, the same for every app a process makes. FastAPI
    builds an included router's routes (their dependencies, their parameters' models) at
    the first request, once for each inclusion: included once here, a process that makes
    several apps (the tests, the season bench) builds them once, not again for each app
    (0.1 s of CPU). Their dependencies are their own, never an app's overrides."""
    site = APIRouter()
    for router in (api.router, operations.router, pages.router, oidc.router, tables.router):
        site.include_router(router)
    return tuple(site.routes)


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """People's tables left playing by an earlier site are abandoned; those this one
    plays stop with it."""
    tables: TableRoom = app.state.tables
    await asyncio.to_thread(tables.abandon_left_over)
    yield
    await tables.close()


def _offline_docs(app: FastAPI) -> None:
    """The OpenAPI page at ``/docs`` with Swagger UI from the installed package, so it
    works on a machine without internet."""

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> RedirectResponse:
        return RedirectResponse("/static/favicon.svg", status_code=301)

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url="/static/swagger/swagger-ui-bundle.js",
            swagger_css_url="/static/swagger/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )
        html = bytes(page.body).decode().replace("<body>", f"<body>{_BACK}", 1)
        return HTMLResponse(html)


#: the way back from the API's page to the dashboard
_BACK = (
    '<p style="font-family:sans-serif;margin:0.6em 1em"><a href="/">&larr; Arena dashboard</a>'
    ' &middot; <a href="/leaderboard">leaderboard</a></p>'
)
