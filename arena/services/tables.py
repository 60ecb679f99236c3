"""A person's table as a use case: who sits with the person, under which rules, checked
against what the bots' owners allow (arena.platform.tables plays it)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from arena.base.errors import Forbidden, Invalid
from arena.base.people import Someone
from arena.base.states import BotKind, TableStatus
from arena.engine import Game, RulesError, Ruleset
from arena.referee.log import MatchLog
from arena.referee.views import owners_text_only
from arena.services import releases
from arena.store import logs
from arena.store import tables as store
from arena.store.leases import SeatPlan
from arena.store.models import PlayedTable
from sample_bots import NAMES as SAMPLE_NAMES

#: the most bots a person may sit with (the rules may allow fewer)
MAX_BOTS = 7
GUEST = "guest"


@dataclass(frozen=True)
class TableRequest:
    """What a person asks for: the rules preset, the bots by seat after theirs
    (``sample:NAME``, ``BOT``, ``BOT:N``...), and their own seat (0 first)."""

    bots: tuple[str, ...]
    rules: str = "classic"
    seat: int = 0


@dataclass(frozen=True)
class TablePlan:
    ruleset: Ruleset
    #: the bots' seats, in seat order without the person's
    bots: tuple[SeatPlan, ...]
    seat: int
    person: str
    owner_id: int | None

    @property
    def names(self) -> list[str]:
        names = [plan.name for plan in self.bots]
        names.insert(self.seat, self.person)
        return names


def plan(session: Session, request: TableRequest, person: Someone | None) -> TablePlan:
    """The table ``request`` asks for, or why not (Refused)."""
    try:
        ruleset = Ruleset.parse(request.rules)
    except RulesError as error:
        raise Invalid(str(error)) from None
    if not 1 <= len(request.bots) <= MAX_BOTS:
        raise Invalid(f"a table seats 1 to {MAX_BOTS} bots beside you, not {len(request.bots)}")
    players = len(request.bots) + 1
    try:
        Game(ruleset, players)
    except RulesError as error:
        raise Invalid(f"{players} players under {request.rules!r}: {error}") from None
    if not 0 <= request.seat < players:
        raise Invalid(f"your seat is 0 to {players - 1}, not {request.seat}")
    bots = tuple(_bot(session, spec, person) for spec in request.bots)
    name = person.name if person is not None else GUEST
    return TablePlan(ruleset, bots, request.seat, name, person.id if person else None)


def _bot(session: Session, spec: str, person: Someone | None) -> SeatPlan:
    if spec.startswith("sample:"):
        sample = spec.removeprefix("sample:")
        if sample not in SAMPLE_NAMES:
            raise Invalid(f"no sample bot {sample!r}: expected one of {', '.join(SAMPLE_NAMES)}")
        return SeatPlan(0, spec, BotKind.SAMPLE, sample)
    version = releases.playable_by(session, spec, person.id if person else None)
    if not version.bot.people_may_play:
        raise Forbidden(f"{version.bot.name}'s owner does not let people play against it")
    return SeatPlan(version.id, version.label, version.kind, version.target)


def played(session: Session, table_id: str) -> tuple[PlayedTable, MatchLog | None]:
    """The table ``table_id`` and, once it is over, its log (NotFound: no such table)."""
    table = store.find(session, table_id)
    if table.status is not TableStatus.DONE or table.log is None:
        return table, None
    return table, MatchLog.from_dict(logs.decode(table.log))


def finished_log(session: Session, table_id: str) -> MatchLog:
    """The finished table's full log, the bots' words left out (their owners')."""
    full = MatchLog.from_dict(store.log_of(session, table_id))
    return owners_text_only(full, {store.find(session, table_id).seat})
