"""The referee: plays one match between seats under deadlines and writes its log.

A bot's failure is match data, never the referee's crash: a late answer is an
illegal action and a strike; 3 strikes, the illegal-action limit, a crash, an
unreachable bot or a protocol violation forfeits the seat (docs/rules.md "Forfeit").
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena import protocol
from arena.base import aio
from arena.engine import Action, Deal, Game, Ruleset
from arena.engine.events import Event, Illegal, IllegalReason
from arena.engine.match import Match
from arena.engine.observation import Observation
from arena.fairplay.counting import FairPlayCounter
from arena.referee.failures import FailureKind, SeatFailure, SeatTimeout
from arena.referee.log import (
    DealRecord,
    FailureRecord,
    ForfeitRecord,
    MatchLog,
    Result,
    SeatRecord,
    Step,
    StepKind,
)
from arena.referee.seats import Seat
from arena.referee.style import StyleCounter
from arena.referee.views import seat_view
from arena.v1 import player_pb2 as pb

#: the most strikes or illegal actions a seat may be allowed before it forfeits (the store
#: keeps a seat's counts as small integers)
COUNT_LIMIT = 1_000


@dataclass(frozen=True)
class RefereeSettings:
    #: seconds a bot has for each decision before its time bank is drawn on
    deadline: float = 1.0
    #: seconds per seat per match beyond the deadlines
    time_bank: float = 5.0
    #: late answers that forfeit
    strikes: int = 3
    #: illegal actions that forfeit
    illegal_limit: int = 10
    #: seconds to connect and answer the start of the match
    start_timeout: float = 10.0

    def __post_init__(self) -> None:
        for name in ("strikes", "illegal_limit"):
            if not 1 <= getattr(self, name) <= COUNT_LIMIT:
                raise ValueError(
                    f"{name} is from 1 to {COUNT_LIMIT} (a seat's count is stored small)"
                )


@dataclass
class SeatStats:
    #: the platform's name for the seat (a registered bot and version)
    name: str
    #: what the bot said of itself in its Hello (name, version): detail only
    hello: dict[str, str] | None = None
    strikes: int = 0
    illegal: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[FailureRecord] = field(default_factory=list)
    forfeit: ForfeitRecord | None = None
    bank: float = 0.0


class Referee:
    def __init__(
        self,
        ruleset: Ruleset,
        seats: Sequence[Seat],
        seed: int | str,
        settings: RefereeSettings | None = None,
        *,
        match_id: str | None = None,
        dealer: int = 0,
        on_step: Callable[[], None] | None = None,
        on_started: Callable[[], None] | None = None,
    ) -> None:
        self.game = Game(ruleset, len(seats))
        self.ruleset = ruleset
        self.seats = list(seats)
        self.settings = settings or RefereeSettings()
        self.match = Match(self.game, seed, dealer)
        self.match_id = match_id or uuid.uuid4().hex
        self.stats = [SeatStats(seat.name, bank=self.settings.time_bank) for seat in seats]
        self._style = StyleCounter(len(seats))
        #: what each seat did to each other seat (arena.fairplay): read by the recorder
        self.fairplay = FairPlayCounter()
        self.on_step = on_step
        #: called once every seat has started (its Hello heard, or its failure known)
        self.on_started = on_started
        self._began = 0.0
        #: where the match's wall time went (ms): starting the seats, the deals, the end
        self.timing: dict[str, float] = {}
        self._deals: list[DealRecord] = []
        self._forfeits: list[ForfeitRecord] = []
        #: the steps of the deal in play (a forfeit during a deal is one of them)
        self._steps: list[Step] | None = None

    # ------------------------------------------------------------------ the match

    async def run(self) -> MatchLog:
        """Play the whole match and return its log."""
        self._began = time.perf_counter()
        started_at = time.time()
        try:
            await self._start_seats()
            if self.on_started is not None:
                self.on_started()
            started = time.perf_counter()
            while not self.match.over:
                await self._play_deal(self.match.next_deal())
            played = time.perf_counter()
            log = self._log(started_at)
            await self._end_seats(log)
        finally:
            await asyncio.gather(*(seat.close() for seat in self.seats), return_exceptions=True)
        ended = time.perf_counter()
        self.timing = {
            "start_ms": (started - self._began) * 1000,
            "play_ms": (played - started) * 1000,
            "end_ms": (ended - played) * 1000,
        }
        return log

    async def _start_seats(self) -> None:
        start_timeout = self.settings.start_timeout
        names = [seat.name for seat in self.seats]
        starts = [
            seat.start(self._match_start(index, names), start_timeout)
            for index, seat in enumerate(self.seats)
        ]
        results = await asyncio.gather(*starts, return_exceptions=True)
        for index, (seat, result) in enumerate(zip(self.seats, results, strict=True)):
            stats = self.stats[index]
            hello = getattr(seat, "hello", None)
            if hello is not None:
                stats.hello = {"name": hello.name[:100], "version": hello.version[:100]}
            if isinstance(result, SeatFailure):
                self._forfeit(index, result.kind, result.detail, deal=None)
            elif isinstance(result, BaseException):
                self._forfeit(index, FailureKind.CRASHED, repr(result), deal=None)

    def _match_start(self, seat: int, names: list[str]) -> pb.MatchStart:
        return pb.MatchStart(
            protocol_version=protocol.PROTOCOL_VERSION,
            match_id=self.match_id,
            seat=seat,
            players=names,
            rules=protocol.ruleset_to_proto(self.ruleset),
            deadline_seconds=self.settings.deadline,
            time_bank_seconds=self.settings.time_bank,
            deals=self.ruleset.options.deals,
        )

    async def _play_deal(self, deal: Deal) -> None:
        index = len(self.match.results)
        opening, stock = tuple(deal.events), tuple(deal.stock)  # as dealt
        steps: list[Step] = []
        self._steps = steps
        cursors = [0] * deal.players
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            observation = deal.observation(seat, cursors[seat])
            cursors[seat] = len(deal.events)
            self.fairplay.before(deal, seat, observation.legal)
            await self._decision(deal, seat, observation, index)
            if self.on_step is not None:
                self.on_step()
        self._steps = None
        self.match.record(deal)
        self._deals.append(
            DealRecord(
                index=index,
                seed=self.match.deal_seed(index),
                dealer=deal.dealer,
                hands=deal.dealt,
                stock=stock,
                hidden=deal.hidden,
                opening_events=opening,
                steps=tuple(steps),
                ranking=deal.ranking or (),
                end_reason=deal.end_reason,
                turns=deal.turns,
            )
        )

    async def _decision(
        self, deal: Deal, seat: int, observation: Observation, deal_index: int
    ) -> None:
        stats = self.stats[seat]
        deadline = self.settings.deadline
        allowed = deadline + stats.bank
        player = self.seats[seat]
        began = time.perf_counter()
        try:
            action = await player.decide(observation, deal_index, allowed)
        except SeatTimeout:
            stats.bank = 0.0
            stats.strikes += 1
            stats.latencies_ms.append(allowed * 1000)
            late = f"no answer within {allowed:.3f} s"
            stats.failures.append(FailureRecord(deal_index, deal.turns, "timeout", late))
            events = self._step(
                deal, seat, StepKind.TIMEOUT, None, allowed, lambda: deal.time_out(seat)
            )
            self._count_illegal(deal, seat, deal_index, events)
            self._enforce_limits(deal, seat, deal_index)
            return
        except SeatFailure as failure:
            self._forfeit(seat, failure.kind, failure.detail, deal=deal_index)
            return
        latency = time.perf_counter() - (getattr(player, "sent_at", None) or began)
        stats.latencies_ms.append(latency * 1000)
        stats.bank = max(0.0, stats.bank - max(0.0, latency - deadline))
        events = self._step(
            deal, seat, StepKind.ACT, action, latency, lambda: deal.apply(seat, action)
        )
        self._count_illegal(deal, seat, deal_index, events)
        self._enforce_limits(deal, seat, deal_index)

    def _step(
        self,
        deal: Deal,
        seat: int,
        kind: StepKind,
        action: Action | None,
        latency: float,
        apply: Callable[[], object],
    ) -> list[Event]:
        """Apply a step, log it, and return the events it caused."""
        before = len(deal.events)
        at_ms = round((time.perf_counter() - self._began) * 1000, 3)
        apply()
        events = deal.events[before:]
        if action is not None:
            self._style.add(seat, action, events)
            self.fairplay.after(deal, seat, action, events)
        assert self._steps is not None, "a step outside a deal"
        self._steps.append(Step(seat, kind, action, round(latency * 1000, 3), at_ms, tuple(events)))
        return events

    def _count_illegal(self, deal: Deal, seat: int, deal_index: int, events: list[Event]) -> None:
        illegal = next((e for e in events if isinstance(e, Illegal) and e.seat == seat), None)
        if illegal is None:
            return
        stats = self.stats[seat]
        stats.illegal += 1
        if illegal.rule is not IllegalReason.LATE_ANSWER:
            stats.failures.append(FailureRecord(deal_index, deal.turns, "illegal", illegal.reason))

    def _enforce_limits(self, deal: Deal, seat: int, deal_index: int) -> None:
        """Forfeit a seat that reached the strike limit, else the illegal-action limit."""
        stats = self.stats[seat]
        if not deal.active[seat] or deal.over:
            return
        if stats.strikes >= self.settings.strikes:
            kind, detail = FailureKind.STRIKES, f"{stats.strikes} late answers"
        elif stats.illegal >= self.settings.illegal_limit:
            kind, detail = FailureKind.ILLEGAL_LIMIT, f"{stats.illegal} illegal actions"
        else:
            return
        self._forfeit(seat, kind, detail, deal=deal_index)

    def _forfeit(self, seat: int, kind: FailureKind, detail: str, *, deal: int | None) -> None:
        """Remove ``seat`` from the match; during a deal, that is one of its steps."""
        stats = self.stats[seat]
        if stats.forfeit is not None:
            return
        forfeit = ForfeitRecord(seat, str(kind), detail, deal)
        stats.forfeit = forfeit
        stats.failures.append(FailureRecord(deal, None, "forfeit", f"{kind}: {detail}"))
        self._forfeits.append(forfeit)
        current = self.match.deal
        if self._steps is not None and current is not None and not current.over:
            self._step(current, seat, StepKind.FORFEIT, None, 0.0, lambda: self.match.forfeit(seat))
        else:
            self.match.forfeit(seat)

    async def _end_seats(self, log: MatchLog) -> None:
        """Tell every seat the result; the bots that asked get their own view of the match
        (never the seed or another seat's hidden cards: arena.referee.views)."""
        ranking = protocol.ranking_to_proto(log.result.ranking)
        ends = []
        for index, seat in enumerate(self.seats):
            forfeit = self.stats[index].forfeit
            reason = f"{forfeit.kind}: {forfeit.detail}" if forfeit else ""
            hello = getattr(seat, "hello", None)
            wants = hello is not None and hello.want_log
            view = json.dumps(seat_view(log, index).to_dict()) if wants else ""
            ends.append(
                seat.end(pb.MatchEnd(ranking=ranking, forfeit_reason=reason, log_json=view))
            )
        await asyncio.gather(*ends, return_exceptions=True)

    # ------------------------------------------------------------------ the log

    def _log(self, started_at: float) -> MatchLog:
        match = self.match
        return MatchLog(
            match_id=self.match_id,
            ruleset=self.ruleset,
            players=self.game.players,
            seed=match.seed,
            dealer=self._deals[0].dealer if self._deals else match.dealer,
            settings=asdict(self.settings),
            seats=tuple(self._seat_record(index) for index in range(self.game.players)),
            forfeits=tuple(self._forfeits),
            deals=tuple(self._deals),
            result=Result(match.ranking(), tuple(match.losses), tuple(match.place_sums)),
            started_at=started_at,
            duration_ms=round((time.perf_counter() - self._began) * 1000, 3),
        )

    def _seat_record(self, index: int) -> SeatRecord:
        stats = self.stats[index]
        latencies = sorted(stats.latencies_ms)
        return SeatRecord(
            seat=index,
            name=stats.name,
            hello=stats.hello,
            decisions=len(latencies),
            strikes=stats.strikes,
            illegal=stats.illegal,
            latency_ms={
                "mean": round(sum(latencies) / len(latencies), 3) if latencies else None,
                "p99": round(percentile(latencies, 0.99), 3) if latencies else None,
                "max": round(latencies[-1], 3) if latencies else None,
            },
            failures=tuple(stats.failures),
            forfeit=stats.forfeit,
            style=self._style.counts[index],
        )


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of an already sorted sequence."""
    if not ordered:
        raise ValueError("no values")
    rank = math.ceil(round(fraction * len(ordered), 9))
    return ordered[min(len(ordered), max(1, rank)) - 1]


def play_match(
    ruleset: Ruleset,
    seats: Sequence[Seat],
    seed: int | str,
    settings: RefereeSettings | None = None,
    **kwargs: Any,
) -> MatchLog:
    """Synchronous wrapper: play one match and return its log."""
    return aio.run(Referee(ruleset, seats, seed, settings, **kwargs).run())
