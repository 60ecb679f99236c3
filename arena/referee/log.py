"""The match log as one typed value, from the referee to the page (docs/match-log.md).

The referee builds a :class:`MatchLog` as it plays (steps, events and forfeits as these
records, actions and events the engine's own types); views (arena.referee.views) are
``MatchLog -> MatchLog``; the recorder, play style, series, replay and the dashboard
take it. Dicts exist only at the JSON boundary: ``to_dict`` writes the stored and
served format, and ``from_dict`` checks a log, or a view of one, once and reads it back
(a play whose cards a view keeps face down becomes a :class:`FaceDownPlay`, and secret
parts of a view are ``None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, overload

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
class FailureRecord:
    """One thing a seat did wrong, in order: a late answer, an illegal action, its forfeit."""

    #: the deal it happened in; None before the first deal
    deal: int | None
    #: the decision's turn (None for a forfeit)
    turn: int | None
    #: ``timeout``, ``illegal`` or ``forfeit``
    kind: str
    detail: str

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FailureRecord:
        return cls(data["deal"], data["turn"], data["kind"], data["detail"])

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "turn": self.turn, "kind": self.kind, "detail": self.detail}


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
        at = data.get("seat", seat)
        if at is None:
            raise LogFormatError("a forfeit without its seat")
        return cls(at, data["kind"], data["detail"], data["deal"])

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
    failures: tuple[FailureRecord, ...]
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
            tuple([FailureRecord.from_dict(failure) for failure in data["failures"]]),
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
            "failures": [failure.to_dict() for failure in self.failures],
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


class _DealsRead(Sequence[DealRecord]):
    """The deals of a log read from JSON, each read into a :class:`DealRecord` on first use
    (the recorder and the listings need the seats and the result, not every event)."""

    __slots__ = ("_data", "_read")

    def __init__(self, data: Sequence[dict[str, Any]]) -> None:
        self._data = tuple(data)
        self._read: tuple[DealRecord, ...] | None = None

    def _records(self) -> tuple[DealRecord, ...]:
        if self._read is None:
            self._read = tuple([DealRecord.from_dict(deal) for deal in self._data])
        return self._read

    def __len__(self) -> int:
        return len(self._data)

    @overload
    def __getitem__(self, index: int) -> DealRecord: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[DealRecord]: ...
    def __getitem__(self, index: int | slice) -> DealRecord | Sequence[DealRecord]:
        return self._records()[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class MatchLog:
    """A match's log: what the referee returns, what is stored (as :meth:`to_dict`) and
    what every reader takes; a view of it (arena.referee.views) is one too."""

    match_id: str
    ruleset: Ruleset
    players: int
    #: the match's seed as given (a string, or an int in play of one's own); None in a view
    seed: int | str | None
    dealer: int
    settings: dict[str, Any]
    seats: tuple[SeatRecord, ...]
    forfeits: tuple[ForfeitRecord, ...]
    deals: Sequence[DealRecord]
    result: Result
    #: when the match began (seconds since the epoch)
    started_at: float | None
    duration_ms: float | None
    #: ``full``, ``public`` or ``seat N`` (arena.referee.views)
    view: str = "full"

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
            _DealsRead(data["deals"]),
            Result.from_dict(data["result"]),
            data.get("started_at"),
            data.get("duration_ms"),
            data.get("view", "full"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The log as JSON data (docs/match-log.md), as stored and served."""
        parts: dict[str, Any] = {
            "format": LOG_FORMAT,
            "match_id": self.match_id,
            "ruleset": self.ruleset.to_dict(),
            "players": self.players,
            "seed": self.seed,
            "dealer": self.dealer,
            "settings": self.settings,
            "seats": [seat.to_dict() for seat in self.seats],
            "forfeits": [forfeit.to_dict() for forfeit in self.forfeits],
            "deals": [deal.to_dict() for deal in self.deals],
            "result": self.result.to_dict(),
            "started_at": self.started_at,
            "duration_ms": self.duration_ms,
        }
        if not self.is_view:
            return parts
        parts["view"] = self.view
        return {key: parts[key] for key in _VIEW_ORDER}


#: a view's keys in the order views have always been written: the public parts first
_VIEW_ORDER = (
    "format",
    "match_id",
    "ruleset",
    "players",
    "dealer",
    "settings",
    "forfeits",
    "result",
    "started_at",
    "duration_ms",
    "view",
    "seed",
    "seats",
    "deals",
)
