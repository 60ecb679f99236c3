"""People's tables: sit with bots, play a seat action by action, read the log once done."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response, status
from fastapi.responses import JSONResponse

from arena.base.errors import Conflict, Invalid
from arena.engine import ActionError, action_from_dict
from arena.engine.actions import check_vocabulary
from arena.engine.events import event_from_dict
from arena.platform.tables import TableRoom
from arena.referee.person import NotAsked
from arena.services import tables as table_service
from arena.services.views.frames import describe
from arena.services.views.schemas import (
    Responses,
    TableAction,
    TableCreate,
    TableCreated,
    TableState,
)
from dashboard.deps import PlatformDep, ReaderDep, SessionDep

router = APIRouter(tags=["tables"])
NOT_FOUND: Responses = {404: {"description": "No such table"}}
TableId = Annotated[str, Path(min_length=8, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
#: a table's answers are its person's alone: never kept by a cache
PRIVATE = {"Cache-Control": "private, no-store"}


def room(request: Request) -> TableRoom:
    tables: TableRoom = request.app.state.tables
    return tables


@router.post(
    "/tables",
    response_model=TableCreated,
    status_code=status.HTTP_201_CREATED,
    responses={
        400: {"description": "Unknown rules or bot, a table size the rules refuse"},
        403: {"description": "A bot whose owner does not let people play it"},
        429: {"description": "As many tables as one person may play at once"},
        503: {"description": "As many tables play as the site allows"},
    },
)
async def create_table(
    body: TableCreate,
    request: Request,
    response: Response,
    platform: PlatformDep,
    reader: ReaderDep,
) -> TableCreated:
    """Sit at a table with bots. With an owner's token the person is named by the
    owner's name, else ``guest``. The id is the key to the seat: keep it."""
    asked = table_service.TableRequest(tuple(body.bots), body.rules, body.seat)
    with platform.db.read() as session:
        plan = table_service.plan(session, asked, reader)
    who = reader.name if reader is not None else f"guest@{_address(request)}"
    table = await room(request).open(plan, who)
    response.headers.update(PRIVATE)
    return TableCreated(
        id=table.id,
        seat=plan.seat,
        match_id=table.match_id,
        names=plan.names,
        url=f"/tables/{table.id}",
    )


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


@router.get("/tables/{table_id}", response_model=TableState, responses=NOT_FOUND)
async def get_table(
    table_id: TableId,
    request: Request,
    wait: Annotated[
        float, Query(ge=0, le=30, description="Seconds to wait for your turn or the end")
    ] = 0,
) -> JSONResponse:
    return _shown(await room(request).state(table_id, wait))


@router.post(
    "/tables/{table_id}/act",
    response_model=TableState,
    responses={
        **NOT_FOUND,
        400: {"description": "Not an action (an illegal one is played, refused and counted)"},
        409: {"description": "Not your turn"},
    },
)
async def act(table_id: TableId, body: TableAction, request: Request) -> JSONResponse:
    """Play your action. An illegal one is refused with the reason (``refused``) and
    counted as the rules say; the answer is the table once the bots have moved."""
    try:  # an illegal action is still the game's words: nothing else is counted or kept
        action = check_vocabulary(action_from_dict(body.action))
    except ActionError as error:
        raise Invalid(str(error)) from None
    tables = room(request)
    if table_id not in tables.live:
        await tables.state(table_id)  # NotFound for a table that never was
        raise Conflict("the table is over")
    try:
        state = await tables.act(table_id, action)
    except NotAsked as error:
        raise Conflict(str(error)) from None
    return _shown(state)


def _shown(state: dict[str, Any]) -> JSONResponse:
    """The table as the API gives it: with the deal's events said in English."""
    names = state["names"]
    said = [describe(event_from_dict(event), names) for event in state.get("history", [])]
    shown = TableState.model_validate({**state, "said": said})
    return JSONResponse(shown.model_dump(), headers=PRIVATE)


@router.post(
    "/tables/{table_id}/leave", status_code=status.HTTP_204_NO_CONTENT, responses=NOT_FOUND
)
async def leave(table_id: TableId, request: Request) -> Response:
    """Leave the table: your seat forfeits (the bots play on)."""
    tables = room(request)
    if table_id not in tables.live:
        await tables.state(table_id)
        raise Conflict("the table is over")
    tables.leave(table_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT, headers=PRIVATE)


@router.get(
    "/tables/{table_id}/log",
    responses={
        **NOT_FOUND,
        200: {
            "description": "The table's full match log (docs/match-log.md), once it is over",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
    },
)
def get_log(table_id: TableId, session: SessionDep) -> JSONResponse:
    """Every card of the finished table; the bots' forfeits by kind only (their words
    are their owners')."""
    log = table_service.finished_log(session, table_id)
    return JSONResponse(
        log.to_dict(),
        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.json"', **PRIVATE},
    )
