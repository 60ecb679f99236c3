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

from arena import aio, protocol
from arena.engine import Action, Deal, Game, Ruleset
from arena.engine.events import Event, Illegal, IllegalReason, event_to_dict
from arena.engine.match import Match
from arena.fairplay.counting import FairPlayCounter
from arena.referee.failures import FailureKind, SeatFailure, SeatTimeout
from arena.referee.log import LOG_FORMAT
from arena.referee.seats import Seat
from arena.referee.style import StyleCounter
from arena.referee.views import seat_view
from arena.v1 import player_pb2 as pb


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


@dataclass
class SeatStats:
    #: the platform's name for the seat (a registered bot and version)
    name: str
    #: what the bot said of itself in its Hello (name, version): detail only
    hello: dict[str, str] | None = None
    strikes: int = 0
    illegal: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    forfeit: dict[str, Any] | None = None
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
        self._began = 0.0
        #: where the match's wall time went (ms): starting the seats, the deals, the end
        self.timing: dict[str, float] = {}
        self._deals: list[dict[str, Any]] = []
        self._forfeits: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ the match

    async def run(self) -> dict[str, Any]:
        """Play the whole match and return its log (JSON data)."""
        self._began = time.perf_counter()
        started_at = time.time()
        try:
            await self._start_seats()
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
        record: dict[str, Any] = {
            "index": len(self.match.results),
            "seed": self.match.deal_seed(len(self.match.results)),
            "dealer": deal.dealer,
            "hands": [list(hand) for hand in deal.dealt],
            "stock": deal.stock,
            "hidden": deal.hidden,
            "opening_events": [event_to_dict(e) for e in deal.events],
            "steps": [],
        }
        self._deals.append(record)
        cursors = [0] * deal.players
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            observation = deal.observation(seat, cursors[seat])
            cursors[seat] = len(deal.events)
            self.fairplay.before(deal, seat, observation.legal)
            await self._decision(deal, seat, observation, record)
            if self.on_step is not None:
                self.on_step()
        self.match.record(deal)
        record.update(
            ranking=[list(group) for group in deal.ranking or ()],
            end_reason=deal.end_reason,
            turns=deal.turns,
        )

    async def _decision(self, deal: Deal, seat: int, observation, record: dict[str, Any]) -> None:
        stats = self.stats[seat]
        deadline = self.settings.deadline
        allowed = deadline + stats.bank
        deal_index = record["index"]
        player = self.seats[seat]
        began = time.perf_counter()
        try:
            action = await player.decide(observation, deal_index, allowed)
        except SeatTimeout:
            stats.bank = 0.0
            stats.strikes += 1
            stats.latencies_ms.append(allowed * 1000)
            stats.failures.append(
                {
                    "deal": deal_index,
                    "turn": deal.turns,
                    "kind": "timeout",
                    "detail": f"no answer within {allowed:.3f} s",
                }
            )
            events = self._step(
                record, deal, seat, "timeout", None, allowed, lambda: deal.time_out(seat)
            )
            self._count_illegal(deal, seat, record, events)
            self._enforce_limits(deal, seat, record)
            return
        except SeatFailure as failure:
            self._forfeit(seat, failure.kind, failure.detail, deal=deal_index, record=record)
            return
        latency = time.perf_counter() - (getattr(player, "sent_at", None) or began)
        stats.latencies_ms.append(latency * 1000)
        stats.bank = max(0.0, stats.bank - max(0.0, latency - deadline))
        events = self._step(
            record,
            deal,
            seat,
            "act",
            action.to_dict(),
            latency,
            lambda: deal.apply(seat, action),
            engine_action=action,
        )
        self._count_illegal(deal, seat, record, events)
        self._enforce_limits(deal, seat, record)

    def _step(
        self,
        record: dict[str, Any],
        deal: Deal,
        seat: int,
        kind: str,
        action: dict[str, Any] | None,
        latency: float,
        apply: Callable[[], object],
        engine_action: Action | None = None,
    ) -> list[Event]:
        """Apply a step, log it, and return the events it caused."""
        before = len(deal.events)
        at_ms = round((time.perf_counter() - self._began) * 1000, 3)
        apply()
        events = deal.events[before:]
        if engine_action is not None:
            self._style.add(seat, engine_action, events)
            self.fairplay.after(deal, seat, engine_action, events)
        record["steps"].append(
            {
                "seat": seat,
                "kind": kind,
                "action": action,
                "latency_ms": round(latency * 1000, 3),
                "at_ms": at_ms,
                "events": [event_to_dict(e) for e in events],
            }
        )
        return events

    def _count_illegal(
        self, deal: Deal, seat: int, record: dict[str, Any], events: list[Event]
    ) -> None:
        illegal = next((e for e in events if isinstance(e, Illegal) and e.seat == seat), None)
        if illegal is None:
            return
        stats = self.stats[seat]
        stats.illegal += 1
        if illegal.rule is not IllegalReason.LATE_ANSWER:
            stats.failures.append(
                {
                    "deal": record["index"],
                    "turn": deal.turns,
                    "kind": "illegal",
                    "detail": illegal.reason,
                }
            )

    def _enforce_limits(self, deal: Deal, seat: int, record: dict[str, Any]) -> None:
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
        self._forfeit(seat, kind, detail, deal=record["index"], record=record)

    def _forfeit(
        self,
        seat: int,
        kind: FailureKind,
        detail: str,
        *,
        deal: int | None,
        record: dict[str, Any] | None = None,
    ) -> None:
        stats = self.stats[seat]
        if stats.forfeit is not None:
            return
        stats.forfeit = {"kind": str(kind), "detail": detail, "deal": deal}
        stats.failures.append(
            {"deal": deal, "turn": None, "kind": "forfeit", "detail": f"{kind}: {detail}"}
        )
        self._forfeits.append({"seat": seat, "kind": str(kind), "detail": detail, "deal": deal})
        current = self.match.deal
        if record is not None and current is not None and not current.over:
            self._step(
                record, current, seat, "forfeit", None, 0.0, lambda: self.match.forfeit(seat)
            )
        else:
            self.match.forfeit(seat)

    async def _end_seats(self, log: dict[str, Any]) -> None:
        """Tell every seat the result; the bots that asked get their own view of the match
        (never the seed or another seat's hidden cards: arena.referee.views)."""
        ranking = protocol.ranking_to_proto(
            tuple(tuple(group) for group in log["result"]["ranking"])
        )
        ends = []
        for index, seat in enumerate(self.seats):
            forfeit = self.stats[index].forfeit
            reason = f"{forfeit['kind']}: {forfeit['detail']}" if forfeit else ""
            hello = getattr(seat, "hello", None)
            view = json.dumps(seat_view(log, index)) if hello is not None and hello.want_log else ""
            ends.append(
                seat.end(pb.MatchEnd(ranking=ranking, forfeit_reason=reason, log_json=view))
            )
        await asyncio.gather(*ends, return_exceptions=True)

    # ------------------------------------------------------------------ the log

    def _log(self, started_at: float) -> dict[str, Any]:
        match = self.match
        ranking = match.ranking()
        return {
            "format": LOG_FORMAT,
            "match_id": self.match_id,
            "ruleset": self.ruleset.to_dict(),
            "players": self.game.players,
            "seed": match.seed,
            "dealer": self._first_dealer(),
            "settings": asdict(self.settings),
            "seats": [self._seat_entry(index) for index in range(self.game.players)],
            "forfeits": self._forfeits,
            "deals": self._deals,
            "result": {
                "ranking": [list(group) for group in ranking],
                "losses": list(match.losses),
                "place_sums": list(match.place_sums),
            },
            "started_at": started_at,
            "duration_ms": round((time.perf_counter() - self._began) * 1000, 3),
        }

    def _first_dealer(self) -> int:
        return self._deals[0]["dealer"] if self._deals else self.match.dealer

    def _seat_entry(self, index: int) -> dict[str, Any]:
        stats = self.stats[index]
        latencies = sorted(stats.latencies_ms)
        return {
            "seat": index,
            "name": stats.name,
            "hello": stats.hello,
            "decisions": len(latencies),
            "strikes": stats.strikes,
            "illegal": stats.illegal,
            "latency_ms": {
                "mean": round(sum(latencies) / len(latencies), 3) if latencies else None,
                "p99": round(percentile(latencies, 0.99), 3) if latencies else None,
                "max": round(latencies[-1], 3) if latencies else None,
            },
            "failures": stats.failures,
            "forfeit": stats.forfeit,
            "style": self._style.counts[index],
        }


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
) -> dict[str, Any]:
    """Synchronous wrapper: play one match and return its log."""
    return aio.run(Referee(ruleset, seats, seed, settings, **kwargs).run())
