"""People's tables (/play), played in the site's process: a person's seat
(arena.referee.person) and bots seated as a worker seats them (samples in process,
uploaded bots each in a fresh sandbox: arena.platform.seating), refereed like any match,
then recorded unranked with the full log (arena.store.tables).

One site process plays the tables: when it starts, tables an earlier one left playing
are marked abandoned (the platform's failure, nobody's loss).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.base.errors import TooMany
from arena.base.states import TableStatus
from arena.engine import Action
from arena.engine.events import Event, event_to_dict
from arena.platform.errors import PlatformError
from arena.platform.sandbox import SandboxUnavailable
from arena.platform.seating import seats_for
from arena.platform.settings import TableLimits
from arena.referee import Referee, RefereeSettings
from arena.referee.log import MatchLog
from arena.referee.person import PersonSeat, legal_to_list, observation_to_dict
from arena.referee.referee import SeatStats
from arena.referee.seats import Seat
from arena.services.tables import TablePlan
from arena.store import logs
from arena.store import tables as store
from arena.store.cache import ArtifactCache
from arena.store.db import Database
from arena.store.models import PlayedTable
from arena.store.tables import TableOpened

log = logging.getLogger(__name__)
T = TypeVar("T")

#: seconds an action's answer waits for the bots to move (then it says "waiting")
MOVE_WAIT = 10.0
#: the longest a reader may ask to wait for their turn
MAX_WAIT = 30.0


class TablesFull(PlatformError):
    """As many tables play as the site allows."""


@dataclass
class LiveTable:
    id: str
    match_id: str
    plan: TablePlan
    person: PersonSeat
    referee: Referee
    stack: ExitStack
    task: asyncio.Task[None] | None = None
    #: set once the table is recorded (or abandoned)
    over: bool = False
    #: why the last action was refused (an illegal action), if it was
    refused: str | None = None
    #: who plays it: an owner's name, or a guest's address (a person's tables are counted)
    who: str = ""

    @property
    def stats(self) -> SeatStats:
        return self.referee.stats[self.plan.seat]

    def state(self, limits: TableLimits) -> dict[str, Any]:
        """What the person sees now (the API's table)."""
        question = self.person.question
        seen = self.person.seen[-1] if self.person.seen else None
        observation = question.observation if question is not None else seen
        status = "your_turn" if question is not None else "waiting"
        return {
            **_header(self.id, self.match_id, self.plan.seat, self.plan.names),
            "status": status,
            "observation": observation_to_dict(observation) if observation else None,
            "legal": legal_to_list(question.observation.legal) if question else [],
            "seconds_left": round(question.seconds_left(), 3) if question else None,
            "deadline": limits.deadline,
            "deal": question.deal if question else None,
            "deals": self.plan.ruleset.options.deals,
            "strikes": self.stats.strikes,
            "illegal": self.stats.illegal,
            "refused": self.refused,
            "history": [
                event for seen in self.person.seen for event in observation_to_dict(seen)["events"]
            ],
        }


def _header(table_id: str, match_id: str, seat: int, names: list[str]) -> dict[str, Any]:
    return {"id": table_id, "match_id": match_id, "seat": seat, "names": names}


def recorded_state(table: PlayedTable) -> dict[str, Any]:
    """A table that is over, as the API shows it: its place and ranking, the person's
    counts and the whole match's public events, from the log."""
    status = "done" if table.status is TableStatus.DONE else str(table.status)
    state = {
        **_header(table.id, table.match_id, table.seat, table.names),
        "status": status,
        "observation": None,
        "legal": [],
        "place": table.place,
        "forfeit": table.forfeit_kind,
        "ranking": [],
    }
    if table.log is None:
        return state
    played = MatchLog.from_dict(logs.decode(table.log))
    mine = played.seats[table.seat]
    return {
        **state,
        "ranking": [[table.names[seat] for seat in group] for group in played.result.ranking],
        "strikes": mine.strikes,
        "illegal": mine.illegal,
        "deals": len(played.deals),
        "history": [event_to_dict(event) for event in _events(played)],
    }


def _events(played: MatchLog) -> list[Event]:
    """Every public event of the match, deal after deal."""
    return [
        event
        for deal in played.deals
        for event in (*deal.opening_events, *(e for step in deal.steps for e in step.events))
    ]


class TableRoom:
    """The tables this site plays now."""

    def __init__(self, db: Database, cache: ArtifactCache, limits: TableLimits) -> None:
        self.db = db
        self.cache = cache
        self.limits = limits
        self.live: dict[str, LiveTable] = {}
        #: who is opening a table now (seating its bots takes a moment)
        self._opening: list[str] = []

    def abandon_left_over(self) -> int:
        """Tables an earlier site process left playing are abandoned; how many."""
        return self.db.transaction(store.abandon_playing)

    async def open(self, plan: TablePlan, who: str) -> LiveTable:
        """Seat the bots and start the match for ``who`` (an owner's name, a guest's
        address); :class:`TablesFull` when the site, or this person, plays as many
        tables as they may."""
        if len(self.live) + len(self._opening) >= self.limits.live:
            raise TablesFull(
                f"{self.limits.live} tables are in play, as many as this site allows:"
                " try again in a few minutes"
            )
        theirs = sum(table.who == who for table in self.live.values()) + self._opening.count(who)
        if theirs >= self.limits.per_person:
            raise TooMany(
                f"you play {theirs} tables already, as many as one person may at once:"
                " finish or leave one first",
                retry_after=60,
            )
        self._opening.append(who)
        try:
            return await self._open(plan, who)
        finally:
            self._opening.remove(who)

    async def _open(self, plan: TablePlan, who: str) -> LiveTable:
        table_id, match_id = secrets.token_urlsafe(18), uuid.uuid4().hex
        seed = secrets.token_hex(16)  # the table's own deals: nobody else plays them
        opened = TableOpened(
            table_id,
            match_id,
            plan.person,
            plan.owner_id,
            plan.ruleset.to_dict(),
            plan.names,
            plan.seat,
        )
        await self._write(lambda session: store.open_table(session, opened))
        stack = ExitStack()
        try:
            bots = await asyncio.to_thread(
                seats_for,
                list(plan.bots),
                plan.ruleset,
                seed,
                stack,
                self.cache.code_for,
                len(plan.names),  # the person's seat too: a sample bot counts every seat
            )
        except SandboxUnavailable as error:
            await asyncio.to_thread(stack.close)
            await self._write(lambda session: store.abandon(session, table_id))
            raise PlatformError(f"this site cannot start uploaded bots now: {error}") from None
        person = PersonSeat(plan.person)
        seats: list[Seat] = [*bots[: plan.seat], person, *bots[plan.seat :]]
        settings = RefereeSettings(
            deadline=self.limits.deadline, time_bank=self.limits.time_bank, start_timeout=30.0
        )
        referee = Referee(plan.ruleset, seats, seed, settings, match_id=match_id)
        table = LiveTable(table_id, match_id, plan, person, referee, stack, who=who)
        self.live[table_id] = table
        table.task = asyncio.create_task(self._play(table), name=f"table {table_id}")
        return table

    async def _play(self, table: LiveTable) -> None:
        played: MatchLog | None = None
        try:
            played = await table.referee.run()
        except Exception:  # the platform's failure: the table is abandoned, nobody loses
            log.exception("table %s failed", table.id)
        finally:
            await self._record(table, played)

    async def _record(self, table: LiveTable, played: MatchLog | None) -> None:
        """Close the bots, then keep the log (or abandon the table); the table is over."""
        try:
            await asyncio.to_thread(table.stack.close)
            if played is None:
                await self._write(lambda session: store.abandon(session, table.id))
            else:
                await self._write(lambda session: store.finish(session, table.id, played))
        finally:
            table.over = True
            self.live.pop(table.id, None)
            table.person.notify()

    async def act(self, table_id: str, action: Action) -> dict[str, Any]:
        """The person's action; the table once the bots have moved (``NotAsked`` when it
        is not the person's turn)."""
        table = self.live.get(table_id)
        if table is None:
            return await self.state(table_id)  # over: NotAsked is the caller's to say
        illegal = table.stats.illegal
        change = table.person.watch()
        table.person.answer(action)
        await _wait_for(change, MOVE_WAIT)
        table.refused = table.stats.failures[-1].detail if table.stats.illegal > illegal else None
        return await self.state(table_id)

    def leave(self, table_id: str) -> None:
        table = self.live.get(table_id)
        if table is not None:
            table.person.leave()

    async def state(self, table_id: str, wait: float = 0.0) -> dict[str, Any]:
        """The table as its person sees it; with ``wait``, once it is their turn or the
        table is over, or after ``wait`` seconds."""
        table = self.live.get(table_id)
        remaining = min(max(wait, 0.0), MAX_WAIT)
        loop = asyncio.get_running_loop()
        until = loop.time() + remaining
        while table is not None and table.person.question is None and not table.over:
            left = until - loop.time()
            if left <= 0:
                break
            await _wait_for(table.person.watch(), left)
        if table is not None and not table.over:
            return table.state(self.limits)
        found = await asyncio.to_thread(self._read, table_id)
        return recorded_state(found)

    def _read(self, table_id: str) -> PlayedTable:
        with self.db.read() as session:
            table = store.find(session, table_id)
            session.expunge(table)
            return table

    async def close(self) -> None:
        """Stop every table (the site stops): each is abandoned."""
        tasks = [table.task for table in self.live.values() if table.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _write(self, work: Callable[[Any], T]) -> T:
        return await asyncio.to_thread(self.db.transaction, work)


async def _wait_for(event: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(event.wait(), seconds)
    except TimeoutError:
        return
