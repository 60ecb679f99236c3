"""The pages of people's tables: ``/play`` (choose the rules and the bots) and
``/tables/ID`` (play the seat; once over, the replay). The page plays through the
table API (static/play.js)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, status
from fastapi.responses import HTMLResponse

from arena.base.errors import NotFound
from arena.engine import PRESETS, Ruleset
from arena.services import tables as table_service
from arena.services.tables import MAX_BOTS
from arena.services.views import bots as bot_queries
from arena.services.views.frames import EVERY_SEAT, deal_summaries, frames
from dashboard.deps import SessionDep
from dashboard.pages import render
from sample_bots import NAMES as SAMPLES

router = APIRouter(include_in_schema=False)
TableId = Annotated[str, Path(min_length=8, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]


@router.get("/play", response_class=HTMLResponse)
def play_page(session: SessionDep) -> HTMLResponse:
    bots = [f"sample:{name}" for name in SAMPLES] + bot_queries.playable(session)
    # who leads the first deal under each preset: the dealer (seat 0) or its left
    leads = {name: 0 if Ruleset.parse(name).options.dealer_leads else 1 for name in PRESETS}
    return render("play.html", presets=list(PRESETS), bots=bots, most=MAX_BOTS, leads=leads)


@router.get("/tables/{table_id}", response_class=HTMLResponse)
def table_page(table_id: TableId, session: SessionDep) -> HTMLResponse:
    """A table in play (the page plays it), or its replay once it is over."""
    try:
        table, log = table_service.played(session, table_id)
    except NotFound as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None
    if log is None:
        page = render("table.html", table=table, frames=[], deals=[], names=table.names)
    else:
        shown = frames(log, EVERY_SEAT)  # the table's own deals: nobody else plays them
        page = render(
            "table.html",
            table=table,
            frames=shown,
            deals=deal_summaries(shown, table.names),
            names=table.names,
        )
    page.headers["Cache-Control"] = "private, no-store"
    return page
