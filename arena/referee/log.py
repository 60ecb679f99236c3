"""The match log as types: one reader for the JSON the referee writes (docs/match-log.md).

``MatchLog.from_dict`` checks the format once and turns a log, or a view of one
(arena.referee.views), into frozen dataclasses: actions and events become the engine's
own types, a play whose cards a view keeps face down becomes a :class:`FaceDownPlay`,
and secret parts of a view are ``None``. Replay, the dashboard, play style and the
recorder read this model instead of walking the dict; ``to_dict`` gives the JSON back
unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arena.engine import Action, Ruleset, action_from_dict
from arena.engine.events import EndReason, Event, event_from_dict, event_to_dict

LOG_FORMAT = "arena.match-log/1"


class LogFormatError(ValueError):
    """Data that is not an Arena match log of a format this code reads."""


class StepKind(StrEnum):
    ACT = "act"  # the seat's action, carried out (or penalised as illegal)
    TIMEOUT = "timeout"  # no answer in time: the referee acted for the seat
    FORFEIT = "forfeit"  # the seat forfeited here


#: a step's kind by its JSON text (a lookup: an enum call costs more, once per step)
_STEP_KINDS = {kind.value: kind for kind in StepKind}


@dataclass(frozen=True, slots=True)
class FaceDownPlay:
    """A play as the table saw it in a view: how many cards, the claim, never the cards."""

    placed: int
    rank: str
    count: int

    kind = "play"

    def to_dict(self) -> dict[str, Any]:
        return {
            "do": "play",
            "cards": None,
            "placed": self.placed,
            "rank": self.rank,
            "count": self.count,
        }


@dataclass(frozen=True, slots=True)
class Step:
    seat: int
    kind: StepKind
    #: None in a timeout or forfeit step
    action: Action | FaceDownPlay | None
    latency_ms: float | None
    #: ms since the match began
    at_ms: float | None
    #: the public events the step caused
    events: tuple[Event, ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Step:
        action = data["action"]
        return cls(
            data["seat"],
            _STEP_KINDS[data["kind"]],
            None if action is None else _action(action),
            data.get("latency_ms"),
            data.get("at_ms"),
            tuple([event_from_dict(event) for event in data["events"]]),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind.value,
            "action": None if self.action is None else self.action.to_dict(),
            "latency_ms": self.latency_ms,
            "at_ms": self.at_ms,
            "events": [event_to_dict(event) for event in self.events],
        }


def _action(data: dict[str, Any]) -> Action | FaceDownPlay:
    if data.get("do") == "play" and data.get("cards") is None:
        return FaceDownPlay(data["placed"], data["rank"], data["count"])
    return action_from_dict(data)


@dataclass(frozen=True, slots=True)
class DealRecord:
    index: int
    #: secret in a view (None), like the stock, the hidden card and others' hands
    seed: str | None
    dealer: int
    #: each seat's hand as dealt (None where a view hides it)
    hands: tuple[tuple[str, ...] | None, ...]
    stock: tuple[str, ...] | None
    hidden: str | None
    opening_events: tuple[Event, ...]
    steps: tuple[Step, ...]
    #: places of the deal, best first (groups of seats that share a place)
    ranking: tuple[tuple[int, ...], ...] | None
    end_reason: EndReason | None
    turns: int | None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DealRecord:
        ranking = data.get("ranking")
        end = data.get("end_reason")
        return cls(
            data["index"],
            data["seed"],
            data["dealer"],
            tuple(None if hand is None else tuple(hand) for hand in data["hands"]),
            None if data["stock"] is None else tuple(data["stock"]),
            data["hidden"],
            tuple([event_from_dict(event) for event in data["opening_events"]]),
            tuple([Step.from_dict(step) for step in data["steps"]]),
            None if ranking is None else tuple(tuple(group) for group in ranking),
            None if end is None else EndReason(end),
            data.get("turns"),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "index": self.index,
            "seed": self.seed,
            "dealer": self.dealer,
            "hands": [None if hand is None else list(hand) for hand in self.hands],
            "stock": None if self.stock is None else list(self.stock),
            "hidden": self.hidden,
            "opening_events": [event_to_dict(event) for event in self.opening_events],
            "steps": [step.to_dict() for step in self.steps],
        }
        if self.ranking is not None:
            data["ranking"] = [list(group) for group in self.ranking]
        if self.end_reason is not None:
            data["end_reason"] = self.end_reason.value
        if self.turns is not None:
            data["turns"] = self.turns
        return data


@dataclass(frozen=True, slots=True)
class ForfeitRecord:
    seat: int
    #: a FailureKind value (``crashed``, ``strikes``, ``protocol`` ...)
    kind: str
    detail: str
    #: the deal it happened in; None before the first deal
    deal: int | None

    @classmethod
    def from_dict(cls, data: dict[str, Any], seat: int | None = None) -> ForfeitRecord:
        return cls(data.get("seat", seat), data["kind"], data["detail"], data["deal"])

    def to_dict(self, with_seat: bool = True) -> dict[str, Any]:
        data = {"kind": self.kind, "detail": self.detail, "deal": self.deal}
        return {"seat": self.seat, **data} if with_seat else data


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    #: the platform's name for the seat: the registered bot and version
    name: str
    #: what the bot said of itself in its Hello (detail only)
    hello: dict[str, str] | None
    decisions: int
    strikes: int
    illegal: int
    #: ``mean``, ``p99`` and ``max`` of the decision latencies (None without decisions)
    latency_ms: dict[str, float | None]
    failures: tuple[dict[str, Any], ...]
    forfeit: ForfeitRecord | None
    #: play style (arena.referee.style.STYLE_FIELDS); None in logs written before seats had it
    style: dict[str, int] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatRecord:
        forfeit = data["forfeit"]
        return cls(
            data["seat"],
            data["name"],
            data["hello"],
            data["decisions"],
            data["strikes"],
            data["illegal"],
            data["latency_ms"],
            tuple(data["failures"]),
            None if forfeit is None else ForfeitRecord.from_dict(forfeit, data["seat"]),
            data.get("style"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "hello": self.hello,
            "decisions": self.decisions,
            "strikes": self.strikes,
            "illegal": self.illegal,
            "latency_ms": self.latency_ms,
            "failures": list(self.failures),
            "forfeit": None if self.forfeit is None else self.forfeit.to_dict(with_seat=False),
            **({} if self.style is None else {"style": self.style}),
        }


@dataclass(frozen=True, slots=True)
class Result:
    ranking: tuple[tuple[int, ...], ...]
    losses: tuple[int, ...]
    place_sums: tuple[int, ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        return cls(
            tuple(tuple(group) for group in data["ranking"]),
            tuple(data["losses"]),
            tuple(data["place_sums"]),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ranking": [list(group) for group in self.ranking],
            "losses": list(self.losses),
            "place_sums": list(self.place_sums),
        }


@dataclass(frozen=True, slots=True)
class MatchLog:
    match_id: str
    ruleset: Ruleset
    players: int
    #: secret in a view (None)
    seed: str | None
    dealer: int
    settings: dict[str, Any]
    seats: tuple[SeatRecord, ...]
    forfeits: tuple[ForfeitRecord, ...]
    #: the deals as JSON, read into :class:`DealRecord` on first use of ``deals`` (the
    #: recorder needs the seats and the result, not every event of every deal)
    deal_data: tuple[dict[str, Any], ...]
    result: Result
    started_at: str | None
    duration_ms: float | None
    #: ``full``, ``public`` or ``seat N`` (arena.referee.views)
    view: str = "full"
    _read: dict[str, tuple[DealRecord, ...]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @property
    def deals(self) -> tuple[DealRecord, ...]:
        if "deals" not in self._read:
            self._read["deals"] = tuple([DealRecord.from_dict(d) for d in self.deal_data])
        return self._read["deals"]

    @property
    def is_view(self) -> bool:
        return self.view != "full"

    @property
    def names(self) -> list[str]:
        return [seat.name for seat in self.seats]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchLog:
        if not isinstance(data, dict) or data.get("format") != LOG_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise LogFormatError(f"not an Arena match log (format {found!r})")
        return cls(
            data["match_id"],
            Ruleset.from_dict(data["ruleset"]),
            data["players"],
            data["seed"],
            data["dealer"],
            data["settings"],
            tuple(SeatRecord.from_dict(seat) for seat in data["seats"]),
            tuple(ForfeitRecord.from_dict(forfeit) for forfeit in data["forfeits"]),
            tuple(data["deals"]),
            Result.from_dict(data["result"]),
            data.get("started_at"),
            data.get("duration_ms"),
            data.get("view", "full"),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": LOG_FORMAT,
            "match_id": self.match_id,
            "ruleset": self.ruleset.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "dealer": self.dealer,
            "settings": self.settings,
            "seats": [seat.to_dict() for seat in self.seats],
            "forfeits": [forfeit.to_dict() for forfeit in self.forfeits],
            "deals": [deal.to_dict() for deal in self.deals],  # read, then written back
            "result": self.result.to_dict(),
            "started_at": self.started_at,
            "duration_ms": self.duration_ms,
        }
        if self.is_view:
            data["view"] = self.view
        return data
